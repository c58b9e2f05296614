import Foundation

/// The RTSP players arserve suggests for watching its stream: only those installed here.
public enum ViewerSuggestion {
    /// Players that open an `rtsp://` URL given as their one argument, in order of preference.
    public static let players = ["gst-play-1.0", "ffplay", "vlc", "mpv"]

    /// The players found in `searchPath` (colon-separated folders, as `$PATH`), as `which` finds them.
    public static func installed(searchPath: String?) -> [String] {
        let folders = (searchPath ?? "").split(separator: ":").map(String.init)
        return players.filter { player in folders.contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(player)") } }
    }

    /// What to tell the user: `watch with: gst-play-1.0 URL   (or ffplay, vlc)` with the players
    /// installed, else where to get one.
    public static func line(url: String, searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) -> String {
        let found = installed(searchPath: searchPath)
        guard let first = found.first else {
            return "watch with any RTSP player at \(url) (none found in PATH: gst-play-1.0 comes with Debian's "
                + "gstreamer1.0-plugins-base-apps, ffplay with ffmpeg, or install vlc or mpv)"
        }
        return "watch with: \(first) \(url)" + (found.count > 1 ? "   (or \(found.dropFirst().joined(separator: ", ")))" : "")
    }
}
