import Foundation

/// A click on a camera's video as the page saw it: where, in CSS pixels from the top-left corner
/// of the element showing the video, and how big that element was shown. The page sends it as
/// `{"x":120.5,"y":80,"width":640,"height":360}`.
public struct DisplayedClick: Codable, Equatable, Sendable {
    /// Click position from the element's left and top edges, CSS pixels.
    public var x: Double
    public var y: Double
    /// The element's shown size, CSS pixels.
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The page's message, nil when it is not one (not JSON, a field missing or not a number).
    public init?(json: String) {
        guard let click = try? JSONDecoder().decode(DisplayedClick.self, from: Data(json.utf8)) else { return nil }
        self = click
    }

    /// The clicked point in pixels of a `frameWidth` × `frameHeight` frame shown in the element
    /// scaled to fit and centred (letterboxed when the aspect ratios differ, as CSS
    /// `object-fit: contain`); nil when the click fell outside the picture or a size is not positive.
    public func framePoint(frameWidth: Int, frameHeight: Int) -> (x: Double, y: Double)? {
        let fw = Double(frameWidth), fh = Double(frameHeight)
        guard fw > 0, fh > 0, width > 0, height > 0, x.isFinite, y.isFinite else { return nil }
        let scale = min(width / fw, height / fh)
        let left = (width - fw * scale) / 2, top = (height - fh * scale) / 2
        let px = (x - left) / scale, py = (y - top) / scale
        guard px >= 0, py >= 0, px < fw, py < fh else { return nil }
        return (px, py)
    }
}
