import Foundation

/// The total-least-squares line through `points` (pixels): their centroid and the unit direction
/// of their widest spread; nil for fewer than 2 points.
public func principalAxis(of points: [Point]) -> (centre: Point, direction: Point)? {
    guard points.count >= 2 else { return nil }
    let c = points.reduce(Point(x: 0, y: 0), +) * (1 / Double(points.count))
    var xx = 0.0, xy = 0.0, yy = 0.0
    for p in points {
        let v = p - c
        xx += v.x * v.x; xy += v.x * v.y; yy += v.y * v.y
    }
    let angle = 0.5 * atan2(2 * xy, xx - yy)
    return (c, Point(x: cos(angle), y: sin(angle)))
}
