/// What a tracked target is: the kinds of thing the detect → track → overlay → export flow carries.
public enum TargetKind: String, CaseIterable, Hashable, Sendable {
    /// A barcode or QR code, identified by its symbology and exact payload.
    case code
    /// A picture, poster, screen or label: a convex quadrilateral followed by its own texture,
    /// identified by its place and look; it has an aspect ratio and a detection confidence.
    case rectangle
    /// A note placed on the scene (text anchored to a point).
    case note
}
