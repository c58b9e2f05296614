import CQREncode
import Foundation

/// QR error-correction level (share of codewords that may be lost and still recovered).
public enum QRErrorCorrection: Sendable, Hashable, CaseIterable {
    /// About 7 % recovery.
    case low
    /// About 15 % recovery.
    case medium
    /// About 25 % recovery.
    case quartile
    /// About 30 % recovery.
    case high

    var libqrencodeLevel: QRecLevel {
        switch self {
        case .low: return QR_ECLEVEL_L
        case .medium: return QR_ECLEVEL_M
        case .quartile: return QR_ECLEVEL_Q
        case .high: return QR_ECLEVEL_H
        }
    }
}

/// A grid of dark and light modules: a 2D code, or a 1D (linear) code as a matrix one module high.
///
/// Module (0, 0) is the code's own top-left; x grows to the right, y down. For 1D codes a module
/// is one narrow bar/space width, and the rendered bar height comes from `CodePlacement.barHeight`.
/// The factories always produce matrices whose outermost columns (and, for 2D codes, rows) contain
/// dark modules, so the matrix extent is exactly the outline of the dark area.
public struct CodeMatrix: Hashable, Sendable {
    /// Number of module columns.
    public let width: Int
    /// Number of module rows (1 for a linear code).
    public let height: Int
    /// Required light margin on every side, in modules (QR 4, linear codes 10).
    public let quietZoneModules: Int
    /// zbar's name for the symbology: "QR-Code", "EAN-13", "CODE-128".
    public let symbology: String
    /// Row-major module values, `true` = dark.
    private let modules: [Bool]

    /// A matrix from row-major module values (`true` = dark; `modules.count == width * height`).
    /// Throws `CodeGenError.invalidMatrix` for sizes outside 1...65_536, a wrong module count or a
    /// negative quiet zone.
    public init(width: Int, height: Int, modules: [Bool], quietZoneModules: Int, symbology: String) throws {
        guard (1...65_536).contains(width), (1...65_536).contains(height) else {
            throw CodeGenError.invalidMatrix("size \(width)x\(height) modules is outside 1...65536")
        }
        guard modules.count == width * height else {
            throw CodeGenError.invalidMatrix("\(modules.count) modules given for \(width)x\(height)")
        }
        guard (0...1_000).contains(quietZoneModules) else {
            throw CodeGenError.invalidMatrix("quiet zone of \(quietZoneModules) modules")
        }
        self.width = width
        self.height = height
        self.modules = modules
        self.quietZoneModules = quietZoneModules
        self.symbology = symbology
    }

    /// A linear code (one module high) from its run-length pattern: bar, space, bar... widths in
    /// modules, starting with a bar.
    public init(linearWidths widths: [Int], symbology: String) throws {
        var row: [Bool] = []
        for (i, w) in widths.enumerated() { row += Array(repeating: i % 2 == 0, count: w) }
        try self.init(width: row.count, height: 1, modules: row, quietZoneModules: 10, symbology: symbology)
    }

    /// True for a linear (1D) code, i.e. a matrix one module high.
    public var isLinear: Bool { height == 1 }

    /// Whether module (x, y) is dark; positions outside the matrix (the quiet zone and beyond) are light.
    @inline(__always)
    public func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < width, y < height else { return false }
        return modules[y * width + x]
    }

    /// Row `y` as a string of "1" (dark) and "0" (light), handy in tests; empty outside the matrix.
    public func rowString(_ y: Int) -> String {
        guard y >= 0, y < height else { return "" }
        return String((0..<width).map { isDark(x: $0, y: y) ? "1" : "0" })
    }

    // MARK: QR

    /// A QR code holding `payload` as binary (8-bit mode, any bytes including NUL), in the smallest
    /// version that fits, via libqrencode. Quiet zone 4 modules, symbology "QR-Code".
    /// Throws `.emptyPayload`, `.payloadTooLong` (more than ~2953 bytes at `.low`), `.qrEncodingFailed`.
    public static func qr(_ payload: [UInt8], errorCorrection: QRErrorCorrection = .medium) throws -> CodeMatrix {
        guard !payload.isEmpty else { throw CodeGenError.emptyPayload }
        guard payload.count <= Int(Int32.max) else { throw CodeGenError.payloadTooLong(count: payload.count) }
        errno = 0
        let code = payload.withUnsafeBufferPointer { buf in
            QRcode_encodeData(Int32(buf.count), buf.baseAddress, 0, errorCorrection.libqrencodeLevel)
        }
        guard let code else {
            let e = errno
            if e == ERANGE { throw CodeGenError.payloadTooLong(count: payload.count) }
            throw CodeGenError.qrEncodingFailed(errno: e)
        }
        defer { QRcode_free(code) }
        let side = Int(code.pointee.width)
        guard side > 0, let data = code.pointee.data else { throw CodeGenError.qrEncodingFailed(errno: 0) }
        // libqrencode: one byte per module, bit 0 set = dark.
        let modules = (0..<(side * side)).map { data[$0] & 1 == 1 }
        return try CodeMatrix(width: side, height: side, modules: modules, quietZoneModules: 4, symbology: "QR-Code")
    }

    /// A QR code holding the UTF-8 bytes of `text` (8-bit mode). Same errors as `qr(_:errorCorrection:)`.
    public static func qr(text: String, errorCorrection: QRErrorCorrection = .medium) throws -> CodeMatrix {
        try qr(Array(text.utf8), errorCorrection: errorCorrection)
    }
}
