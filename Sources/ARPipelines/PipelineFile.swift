import Foundation

/// A pipeline file (`pipelines/*.pipeline`): a gst-launch description spread over lines, with
/// `#` comment lines (the leading ones say what the file needs and how to run it) and shell-style
/// variables `${NAME}` (required) or `${NAME:-default}` taken from the environment.
///
/// The same file runs with `scripts/arlaunch FILE` (gst-launch-1.0) and `arserve FILE` (RTSP).
public struct PipelineFile: Sendable {
    /// What the described pipeline ends with.
    public enum Output: Equatable, Sendable {
        /// Raw video: the runner adds a display sink, arserve adds an encoder and payloader.
        case rawVideo
        /// An RTP payloader named `pay0`: ready for arserve as is.
        case payloaded
        /// Its own sinks (files, sockets): runs as is, cannot be served.
        case complete
    }

    /// Where the file was read from (for messages).
    public let path: String
    /// The file's text.
    public let text: String

    public init(path: String, text: String) {
        self.path = path
        self.text = text
    }

    /// Reads the file at `path`.
    public init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PipelineFileError.unreadable(path: path, reason: FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw PipelineFileError.unreadable(path: path, reason: "not UTF-8 text")
        }
        self.init(path: path, text: text)
    }

    /// The leading comment lines without their `#`: what the file needs and how to run it.
    public var header: [String] {
        var out: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("#") else { break }
            out.append(String(t.dropFirst()).trimmingCharacters(in: .whitespaces))
        }
        return out
    }

    /// The gst-launch description: comment lines dropped, lines joined with spaces, variables
    /// expanded from `environment`. Throws when a required variable is unset or the file is empty.
    public func description(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        var parts: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.isEmpty || t.hasPrefix("#") { continue }
            parts.append(try expand(t, line: index + 1, environment: environment))
        }
        let joined = parts.joined(separator: " ")
        guard !joined.isEmpty else { throw PipelineFileError.empty(path: path) }
        return joined
    }

    /// What the pipeline ends with, judged from its description.
    public static func output(of description: String) -> Output {
        if description.range(of: #"(^|\s)name\s*=\s*"?pay0\b"#, options: .regularExpression) != nil { return .payloaded }
        let last = topLevelElements(description).last ?? ""
        let factory = last.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? ""
        return factory.contains("sink") ? .complete : .rawVideo
    }

    /// The description with its first element (everything before the first top-level `!`)
    /// replaced by `source`, e.g. a camera swapped for `videotestsrc num-buffers=30`.
    public static func replacingSource(of description: String, with source: String) -> String {
        let elements = topLevelElements(description)
        guard elements.count > 1 else { return source }
        return ([source] + elements.dropFirst()).joined(separator: " ! ")
    }

    /// Elements split at `!` outside quotes and parentheses, trimmed.
    static func topLevelElements(_ description: String) -> [String] {
        var out: [String] = []
        var current = ""
        var quote: Character? = nil
        var depth = 0
        for c in description {
            if let q = quote {
                if c == q { quote = nil }
                current.append(c)
                continue
            }
            switch c {
            case "\"", "'": quote = c; current.append(c)
            case "(": depth += 1; current.append(c)
            case ")": depth -= 1; current.append(c)
            case "!" where depth == 0:
                out.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            default: current.append(c)
            }
        }
        out.append(current.trimmingCharacters(in: .whitespaces))
        return out.filter { !$0.isEmpty }
    }

    private func expand(_ line: String, line number: Int, environment: [String: String]) throws -> String {
        var out = ""
        var rest = Substring(line)
        while let start = rest.range(of: "${") {
            out += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                throw PipelineFileError.badVariable(path: path, line: number, text: String(rest[start.lowerBound...]))
            }
            let body = rest[start.upperBound..<end]
            let name: Substring, fallback: Substring?
            if let sep = body.range(of: ":-") {
                name = body[..<sep.lowerBound]
                fallback = body[sep.upperBound...]
            } else {
                name = body
                fallback = nil
            }
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw PipelineFileError.badVariable(path: path, line: number, text: "${\(body)}")
            }
            if let value = environment[String(name)], !value.isEmpty {
                out += value
            } else if let fallback {
                out += fallback
            } else {
                throw PipelineFileError.missingVariable(path: path, line: number, name: String(name))
            }
            rest = rest[rest.index(after: end)...]
        }
        return out + rest
    }
}

/// Why a pipeline file could not be used.
public enum PipelineFileError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case empty(path: String)
    /// `${NAME}` without a default, and NAME is not set.
    case missingVariable(path: String, line: Int, name: String)
    case badVariable(path: String, line: Int, text: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "\(path): \(reason)"
        case .empty(let path): return "\(path): no pipeline in the file (only comments or blank lines)"
        case .missingVariable(let path, let line, let name):
            return "\(path):\(line): variable \(name) is not set (run with \(name)=... in the environment)"
        case .badVariable(let path, let line, let text): return "\(path):\(line): malformed variable \(text)"
        }
    }
}
