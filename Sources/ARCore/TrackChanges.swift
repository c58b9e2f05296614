/// Which tracks appeared and disappeared between consecutive frames, from the records alone
/// (for writers that see frames, not the tracker): a track is `added` on the first frame that
/// carries its id, and `removed` on the first frame that no longer does (reported with its last
/// record). Objects with id 0 (not tracked, or `located`) are never announced.
public struct TrackChanges: Sendable {
    /// The tracks on the previous frame, by id.
    private var previous: [UInt64: ObjectRecord] = [:]

    public init() {}

    /// The tracks added on a frame carrying `objects` (in their order) and those removed since the
    /// previous frame (by id).
    public mutating func next(_ objects: [ObjectRecord]) -> (added: [ObjectRecord], removed: [ObjectRecord]) {
        var current: [UInt64: ObjectRecord] = [:]
        var added: [ObjectRecord] = []
        for object in objects where object.id != 0 && object.state != .located {
            if current.updateValue(object, forKey: object.id) == nil, previous[object.id] == nil { added.append(object) }
        }
        let removed = previous.values.filter { current[$0.id] == nil }.sorted { $0.id < $1.id }
        previous = current
        return (added, removed)
    }
}

/// What a track event line announces.
public enum TrackEventKind: String, Sendable {
    case added, removed
}

extension FrameRecord {
    /// The record as one JSON line announcing `event` for its objects: the `jsonLine()` schema with
    /// `"event":"added"` (or `"removed"`) after `height`.
    public func jsonLine(event: TrackEventKind) -> String {
        let line = jsonLine()
        let marker = ",\"objects\":["
        guard let range = line.range(of: marker) else { return line }
        return String(line[..<range.lowerBound]) + ",\"event\":\"\(event.rawValue)\"" + String(line[range.lowerBound...])
    }
}
