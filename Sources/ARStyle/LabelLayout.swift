import ARCore

/// Screen-space layout of upright labels: labels of different codes that would overlap are pushed
/// apart (along the axis where they overlap least), every label is kept inside the frame, and each
/// label's displacement follows its target smoothly from frame to frame, so a label does not jump
/// when a neighbour appears or leaves. A label moved away from where its code put it gets a leader
/// line back to that place. Pure: rectangles in, rectangles out (frame pixels).
public struct LabelLayout: Sendable {
    /// One label: which code it belongs to (labels of one code keep their arrangement) and its
    /// index among that code's overlays, and where the code's placement put it.
    public struct Item: Hashable, Sendable {
        public var code: UInt64
        public var index: Int
        public var rect: PlacedRect

        public init(code: UInt64, index: Int, rect: PlacedRect) {
            self.code = code
            self.index = index
            self.rect = rect
        }
    }

    /// A line from a label moved away from where its code put it back to that place, frame pixels.
    public struct Leader: Hashable, Sendable {
        public var from: Point
        public var to: Point
    }

    /// A label where it is drawn, and its leader line (nil when it was not moved far).
    public struct Placed: Hashable, Sendable {
        public var rect: PlacedRect
        public var leader: Leader?
    }

    /// Fraction of the remaining way a displacement moves on each frame (1: at once).
    public var follow = 0.5
    /// Space kept between labels of different codes, pixels.
    public var gap = 2.0
    /// Relaxation rounds per frame (each moves every overlapping pair apart).
    public var rounds = 12

    private struct Key: Hashable { var code: UInt64, index: Int }
    /// Each label's displacement on the last frame.
    private var shown: [Key: Point] = [:]

    public init() {}

    /// Lays out `items` in a `width` × `height` frame; results in the order of `items`. Rotated
    /// labels are left where they are (they turn with their code).
    public mutating func place(_ items: [Item], width: Double, height: Double) -> [Placed] {
        var centres = items.map(\.rect.center)
        let movable = items.map { $0.rect.angle == 0 }
        // Half extents of each label's axis-aligned bounds (a rotated label's are wider).
        let half = items.map { (x: $0.rect.bounds.width / 2, y: $0.rect.bounds.height / 2) }
        func bounds(_ i: Int) -> Rect {
            Rect(x: centres[i].x - half[i].x, y: centres[i].y - half[i].y, width: 2 * half[i].x, height: 2 * half[i].y)
        }
        func clamp(_ i: Int) {
            guard movable[i] else { return }
            let w = items[i].rect.width, h = items[i].rect.height
            centres[i].x = w >= width ? width / 2 : min(max(centres[i].x, w / 2), width - w / 2)
            centres[i].y = h >= height ? height / 2 : min(max(centres[i].y, h / 2), height - h / 2)
        }
        for i in items.indices { clamp(i) }
        // Pairs of labels of different codes, in a fixed order: the same input lays out the same.
        for _ in 0..<rounds {
            var moved = false
            for i in items.indices {
                for j in items.indices where j > i && items[j].code != items[i].code && (movable[i] || movable[j]) {
                    let a = bounds(i), b = bounds(j)
                    let dx = min(a.maxX, b.maxX) - max(a.minX, b.minX) + gap
                    let dy = min(a.maxY, b.maxY) - max(a.minY, b.minY) + gap
                    guard dx > gap, dy > gap else { continue }
                    // Apart along the axis that needs the smaller move; the one whose centre lies
                    // lower (or further right) goes that way. Both share the move when both can.
                    var push = dy <= dx ? Point(x: 0, y: dy) : Point(x: dx, y: 0)
                    let jAfter = dy <= dx ? (centres[j].y, j) > (centres[i].y, i) : (centres[j].x, j) > (centres[i].x, i)
                    if !jAfter { push = push * -1 }
                    let share = movable[i] && movable[j] ? 0.5 : 1
                    if movable[j] { centres[j] = centres[j] + push * share }
                    if movable[i] { centres[i] = centres[i] - push * share }
                    clamp(i)
                    clamp(j)
                    moved = true
                }
            }
            if !moved { break }
        }
        // Displacements eased from the last frame's; a new label starts where it belongs.
        var next: [Key: Point] = [:]
        var out: [Placed] = []
        for (i, item) in items.enumerated() {
            let key = Key(code: item.code, index: item.index)
            let target = centres[i] - item.rect.center
            var d = target
            if let last = shown[key] {
                let step = (target - last) * follow
                d = target.distance(to: last) < 0.5 ? target : last + step
            }
            next[key] = d
            var rect = item.rect
            rect.center = item.rect.center + d
            let far = d.distance(to: Point(x: 0, y: 0)) > max(4, min(item.rect.width, item.rect.height) / 2)
            out.append(Placed(rect: rect, leader: far ? Leader(from: Self.edgePoint(of: rect, towards: item.rect.center), to: item.rect.center) : nil))
        }
        shown = next
        return out
    }

    /// Where the line from `rect`'s centre to `p` leaves the (upright) rectangle.
    static func edgePoint(of rect: PlacedRect, towards p: Point) -> Point {
        let v = p - rect.center
        let sx = v.x == 0 ? Double.infinity : (rect.width / 2) / abs(v.x)
        let sy = v.y == 0 ? Double.infinity : (rect.height / 2) / abs(v.y)
        let s = min(1, sx, sy)
        return rect.center + v * s
    }
}
