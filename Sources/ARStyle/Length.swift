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
    static func parse(_ node: StyleNode, range: (Unit) -> ClosedRange<Double>, millimetresPerCode: Double? = nil) throws -> Length {
        let items = try node.array()
        guard items.count == 2 else { throw node.error("expected [value, \"unit\"], found \(items.count) items") }
        var value = try items[0].number()
        let unit: Unit
        if let realUnit = try? items[1].string(), let mm = Self.millimetres[realUnit], let code = Unit(rawValue: "code") {
            // A real length: in the code's plane, as a multiple of the code's printed size.
            guard let millimetresPerCode else {
                throw items[1].error("'\(realUnit)' needs the printed size of the rule's codes: \"code-size\": [30, \"mm\"]")
            }
            value = value * mm / millimetresPerCode
            unit = code
        } else {
            unit = try items[1].choice("unit", Unit.self)
        }
        let r = range(unit)
        guard r.contains(value) else {
            throw node.error("\(StyleNode.format(value)) \(unit.rawValue) is out of range "
                             + "\(StyleNode.format(r.lowerBound))…\(StyleNode.format(r.upperBound)) \(unit.rawValue)")
        }
        return Length(value, unit)
    }

    /// Real units, in millimetres.
    static var millimetres: [String: Double] { ["mm": 1, "cm": 10, "m": 1000] }

    /// Reads a rule's `code-size` (`[30, "mm"]`): the printed size of its codes, millimetres.
    static func codeSize(_ node: StyleNode) throws -> Double {
        let items = try node.array()
        guard items.count == 2, let unit = try? items[1].string(), let mm = millimetres[unit] else {
            throw node.error("expected [value, \"mm\" | \"cm\" | \"m\"]: the printed size of the rule's codes")
        }
        let value = try items[0].number(in: 0.1...100_000)
        return value * mm
    }
}
