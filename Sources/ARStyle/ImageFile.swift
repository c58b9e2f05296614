import Foundation

/// The image file an overlay names for one code, and the folder it must stay in.
///
/// An image path that is a template (`img/{sku}.png`) takes part of its text from the code's
/// payload, which strangers print. That part can only name a file inside the folder the template's
/// fixed part names (`img/` in the style's folder here): a value with a control character (NUL
/// included), an absolute path, or a `..` component is refused, and so is a file whose real path
/// (symbolic links resolved) lies outside that folder; the file is then opened from that folder
/// down following no link, so a link swapped in after the check fails the open. Only regular files
/// are opened, without blocking (a FIFO or a device is refused, never opened for reading).
public struct ImageFile: Hashable, Sendable {
    /// Where the file is: absolute, or relative to the current folder when the style's folder is.
    public var path: String
    /// The folder the file must lie in once symbolic links are resolved; nil for a path written
    /// whole in the style (the integrator's choice, not the payload's).
    public var confinedTo: String?

    public init(path: String, confinedTo: String? = nil) {
        self.path = path
        self.confinedTo = confinedTo
    }

    /// The file `template` names with the placeholder `values` (a payload, captures, lookup fields),
    /// relative paths resolved against `baseDirectory`; or why the values may not name a file.
    public static func resolve(_ template: TextTemplate, values: [String: String],
                               baseDirectory: String) -> Result<ImageFile, PathRefusal> {
        let expanded = template.expand(values)
        if let bad = expanded.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7f }) {
            let what = bad.value == 0 ? "a NUL character" : String(format: "the control character U+%04X", bad.value)
            return .failure(PathRefusal(path: expanded, reason: "contains \(what)"))
        }
        guard !template.isConstant else {
            return .success(ImageFile(path: OverlaySpec.resolve(path: expanded, baseDirectory: baseDirectory)))
        }
        // The fixed text before the first placeholder, up to its last '/', is the folder.
        var prefix = ""
        for part in template.parts {
            guard case .literal(let s) = part else { break }
            prefix += s
        }
        let folder = prefix.lastIndex(of: "/").map { String(prefix[...$0]) } ?? ""
        var root = folder.isEmpty ? baseDirectory : OverlaySpec.resolve(path: folder, baseDirectory: baseDirectory)
        while root.count > 1, root.hasSuffix("/") { root.removeLast() }
        if root.isEmpty { root = "." }
        let rest = expanded.dropFirst(folder.count)
        if rest.hasPrefix("/") {
            return .failure(PathRefusal(path: expanded, reason: "an absolute path where '\(template.source)' expects a name in '\(root)'"))
        }
        let components = rest.split(separator: "/").filter { $0 != "." }
        if components.contains("..") {
            return .failure(PathRefusal(path: expanded, reason: "'..' would leave '\(root)'"))
        }
        guard !components.isEmpty else {
            return .failure(PathRefusal(path: expanded, reason: "names no file in '\(root)'"))
        }
        return .success(ImageFile(path: (root == "/" ? "" : root) + "/" + components.joined(separator: "/"), confinedTo: root))
    }

    /// The file's bytes: a regular file of at most `maxBytes` bytes, inside `confinedTo` once
    /// symbolic links are resolved. Never blocks on a FIFO or a device: they are refused unopened.
    public func read(maxBytes: Int) throws -> [UInt8] {
        var target = path
        var beneath: String?
        if let root = confinedTo {
            guard let realRoot = ImageFile.realPath(root) else { throw PathRefusal(path: path, reason: "folder '\(root)' not found") }
            guard let real = ImageFile.realPath(path) else { throw PathRefusal(path: path, reason: "file not found") }
            guard real.hasPrefix(realRoot == "/" ? "/" : realRoot + "/") else {
                throw PathRefusal(path: path, reason: "a symbolic link leads out of '\(root)' (to '\(real)')")
            }
            target = real
            beneath = realRoot
        }
        var st = stat()
        guard stat(target, &st) == 0 else { throw PathRefusal(path: path, reason: ImageFile.systemReason()) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw PathRefusal(path: path, reason: "not a regular file (\(ImageFile.kind(st.st_mode)))") }
        let flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY
        // Confined: opened from the folder down, following no link, so a link swapped into the
        // checked path before the open cannot lead out.
        let fd = beneath.map { ImageFile.open(target, beneath: $0, flags: flags) } ?? Glibc.open(target, flags)
        guard fd >= 0 else {
            throw PathRefusal(path: path, reason: errno == ELOOP || errno == ENOTDIR
                              ? "a symbolic link appeared in its path after the check" : ImageFile.systemReason())
        }
        defer { close(fd) }
        // Checked again on what was opened: the file may have been replaced in between.
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            throw PathRefusal(path: path, reason: "not a regular file (\(ImageFile.kind(st.st_mode)))")
        }
        guard st.st_size <= maxBytes else {
            throw PathRefusal(path: path, reason: "\(st.st_size) bytes, more than the \(maxBytes) accepted")
        }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw PathRefusal(path: path, reason: ImageFile.systemReason()) }
            if n == 0 { break }
            count += n
        }
        return Array(bytes[..<count])
    }

    /// `path` (with no symbolic link in it, inside `root`) opened with `flags` one component at a
    /// time from `root`'s own descriptor, each with `O_NOFOLLOW`: a symbolic link anywhere below
    /// `root` fails the open (`ELOOP` or `ENOTDIR`). -1 with `errno` set on failure.
    static func open(_ path: String, beneath root: String, flags: Int32) -> Int32 {
        var dir = Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else { return -1 }
        let parts = path.dropFirst(root == "/" ? 1 : root.count + 1).split(separator: "/")
        for (i, part) in parts.enumerated() {
            let last = i == parts.count - 1
            let next = openat(dir, String(part), (last ? flags : O_RDONLY | O_DIRECTORY | O_CLOEXEC) | O_NOFOLLOW)
            let saved = errno
            close(dir)
            errno = saved
            guard next >= 0 else { return -1 }
            dir = next
        }
        return dir
    }

    private static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    private static func systemReason() -> String {
        errno == ENOENT ? "file not found" : String(cString: strerror(errno))
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFSOCK: return "a socket"
        default: return "not a file"
        }
    }

    /// `text` for a message: control characters (NUL included) shown as `\u{…}`, cut after
    /// `maxCharacters` characters (ending in `…`).
    public static func printable(_ text: String, maxCharacters: Int = 200) -> String {
        var out = ""
        for s in text.unicodeScalars {
            if s.value < 0x20 || s.value == 0x7f { out += "\\u{\(String(s.value, radix: 16))}" } else { out.unicodeScalars.append(s) }
        }
        return out.count > maxCharacters ? String(out.prefix(max(0, maxCharacters - 1))) + "…" : out
    }
}

/// Why an overlay's image file was not read: the path as named, and the reason.
public struct PathRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// The path (control characters escaped, cut after 200 characters) and the reason.
    public var description: String { "'\(ImageFile.printable(path))': \(reason)" }
}
