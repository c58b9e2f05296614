import ARPipelines
import Foundation

/// A camera arserve serves: a pipeline file, the name it goes by (log, status) and its RTSP mount
/// path.
public struct CameraSpec: Sendable {
    /// The file's name without `.pipeline`, e.g. `cam1`.
    public var name: String
    /// Mount path, e.g. `/cam1`.
    public var path: String
    /// The pipeline file.
    public var file: PipelineFile

    /// A camera named `name` mounted at `path`.
    public init(name: String, path: String, file: PipelineFile) {
        self.name = name
        self.path = path
        self.file = file
    }

    /// The camera name of a pipeline file at `path`: its file name without `.pipeline`.
    public static func name(ofFile path: String) -> String {
        let file = URL(fileURLWithPath: path).lastPathComponent
        return file.hasSuffix(".pipeline") ? String(file.dropLast(".pipeline".count)) : file
    }

    /// The cameras `arguments` name, in order: each a pipeline file, or a folder whose
    /// `*.pipeline` files are taken in name order. One file alone is mounted at `singlePath`
    /// (arserve's `--path`, default `/ar`); otherwise each camera at `/NAME` (letters, digits,
    /// `.`, `_`, `-`, `~`; names must differ), and `singlePath` must be nil. Reads the files.
    public static func resolve(_ arguments: [String], singlePath: String?) throws -> [CameraSpec] {
        guard !arguments.isEmpty else { throw ServeError.options("no pipeline file given") }
        var files: [String] = []
        var sawFolder = false
        for argument in arguments {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder), isFolder.boolValue {
                sawFolder = true
                let names = try FileManager.default.contentsOfDirectory(atPath: argument).filter { $0.hasSuffix(".pipeline") }.sorted()
                guard !names.isEmpty else { throw ServeError.options("\(argument): no .pipeline files in this folder") }
                files += names.map { (argument as NSString).appendingPathComponent($0) }
            } else {
                files.append(argument)
            }
        }
        let single = files.count == 1 && !sawFolder
        if !single, let singlePath {
            throw ServeError.options("--path \(singlePath) names the mount of a single file; several cameras are mounted at /NAME, after their files")
        }
        var cameras: [CameraSpec] = []
        for path in files {
            let name = name(ofFile: path)
            guard single || !name.isEmpty && name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-~".contains($0)) }) else {
                throw ServeError.options("\(path): a camera's name comes from its file's name, which may hold only letters, digits, '.', '_', '-' and '~'")
            }
            if let other = cameras.first(where: { $0.name == name }) {
                throw ServeError.options("\(other.file.path) and \(path) would both be served at /\(name): rename one")
            }
            let file: PipelineFile
            do { file = try PipelineFile(contentsOf: path) } catch let e as PipelineFileError { throw ServeError.pipeline(e) }
            cameras.append(CameraSpec(name: name, path: single ? singlePath ?? ServeOptions().path : "/" + name, file: file))
        }
        return cameras
    }
}
