import Foundation

/// HTTP basic authentication with one user, as arserve's RTSP side does it (`--user`,
/// `$ARSERVE_PASSWORD`).
public struct BasicCredentials: Sendable, Equatable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The `WWW-Authenticate` header value a refused request is answered with.
    public static let challenge = "Basic realm=\"arserve\", charset=\"UTF-8\""

    /// Whether an `Authorization` header value (`Basic base64(user:password)`) names this user and
    /// password. Compares every byte whatever the first difference, so timing does not tell how
    /// much of a guess was right.
    public func accepts(authorization: String?) -> Bool {
        guard let authorization else { return false }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let decoded = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)) else { return false }
        let expected = Array("\(user):\(password)".utf8), given = Array(decoded)
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for i in 0..<max(expected.count, given.count) {
            difference |= (i < expected.count ? expected[i] : 0) ^ (i < given.count ? given[i] : 0)
        }
        return difference == 0
    }

    /// The `Authorization` header value a client sends.
    public var authorization: String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }
}
