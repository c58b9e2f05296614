/// Units of an overlay offset.
public enum OffsetUnit: String, CaseIterable, Sendable {
    /// Frame pixels.
    case px
    /// Multiples of the code's size on that axis.
    case code
    /// Multiples of the overlay's own size on that axis.
    case ownSize = "self"
}

/// Units of an overlay size.
public enum SizeUnit: String, CaseIterable, Sendable {
    /// Frame pixels.
    case px
    /// Multiples of the code's size on that axis.
    case code
    /// Multiple of the overlay's size on the other axis (not on both axes).
    case ratio
}

/// A length written `[value, "unit"]` in a style file.
public struct Length<Unit: RawRepresentable & CaseIterable & Hashable & Sendable>: Hashable, Sendable where Unit.RawValue == String {
    public var value: Double
    public var unit: Unit

    public init(_ value: Double, _ unit: Unit) {
        self.value = value
        self.unit = unit
    }

    /// Reads `[value, "unit"]`, refusing a value outside `range(unit)` (the error names the key,
    /// the unit and the accepted range).
    static func parse(_ node: StyleNode, range: (Unit) -> ClosedRange<Double>) throws -> Length {
        let items = try node.array()
        guard items.count == 2 else { throw node.error("expected [value, \"unit\"], found \(items.count) items") }
        let value = try items[0].number(), unit = try items[1].choice("unit", Unit.self)
        let r = range(unit)
        guard r.contains(value) else {
            throw node.error("\(StyleNode.format(value)) \(unit.rawValue) is out of range "
                             + "\(StyleNode.format(r.lowerBound))…\(StyleNode.format(r.upperBound)) \(unit.rawValue)")
        }
        return Length(value, unit)
    }
}
