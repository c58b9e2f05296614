import ARServe
import Foundation
import XCTest

/// The package's root folder (pipelines/ lives there).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Waits until `done()` or a generous guard time (a hang guard, not a timing assertion).
func waitUntil(seconds: Double = 60, _ done: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if done() { return true }
        usleep(20_000)
    }
    return done()
}

/// Pixels of the overlay's default outline colour (pure green) in an RGB frame.
func greenPixels(_ rgb: [UInt8]) -> Int {
    var n = 0
    var i = 0
    while i + 2 < rgb.count {
        if rgb[i + 1] > 180 && rgb[i] < 110 && rgb[i + 2] < 110 { n += 1 }
        i += 3
    }
    return n
}
