/// Errors from setting up the detector.
public enum DetectorError: Error, Equatable, CustomStringConvertible {
    /// A name in the symbology list is not one zbar knows.
    case unknownSymbology(String, known: [String])
    /// zbar could not create its scanner.
    case scannerUnavailable

    public var description: String {
        switch self {
        case .unknownSymbology(let name, let known):
            return "unknown symbology '\(name)' (known: \(known.joined(separator: ", ")))"
        case .scannerUnavailable:
            return "zbar could not create an image scanner"
        }
    }
}
