import ARCodeGen
import ARCore
import ARGst
import CGStreamer
import Foundation

private let cat = DebugCategory("arcodesrc", description: "arbarcode synthetic code source")

/// What `arcodesrc` draws its codes over (`CodeClipBackground`).
public enum CodeSrcBackground: Int32, PropertyEnum {
    /// Mid-gray with gentle shading and fine grain.
    case plain = 0
    /// Cardboard, shelf edges, printed-text-like strokes and bar-like stripes.
    case texture = 1

    public var nick: String { ["plain", "texture"][Int(rawValue)] }
    public var label: String {
        ["Plain gray with gentle shading", "Cardboard, shelf edges, text-like strokes and stripes (edges a naive detector mistakes for codes)"][Int(rawValue)]
    }
    var clipBackground: CodeClipBackground { self == .plain ? .plain : .texture }
}

/// `arcodesrc`: like `videotestsrc`, for codes. Renders a deterministic clip of moving QR, EAN-13
/// and Code 128 codes (`CodeClip`) with rotation, scale change, keystone, occluders, codes entering
/// and leaving, noise and blur, seen through a shaking or panning camera with motion blur, over a
/// plain or busy background, among photo cards (real photos with or without codes, from the `photos`
/// folder, decoded with GStreamer when the element starts). The exact corners of every code on every frame go to
/// `truth-location` as JSON Lines in the arexport schema (id = code number + 1; state `detected`
/// when wholly visible, `tracked` when partly hidden). Buffers carry no code metadata, so nothing
/// downstream can mistake the truth for a detection.
public final class ArCodeSrc: VideoSourceElement {
    public struct Settings: Sendable {
        var live = false
        var seed = 1
        var codes = 10
        var kinds: String? = "qrcode,ean13,code128"
        var codeSize = 0.17
        var speed = 0.12
        var rotationSpeed = 20.0
        var scaleChange = 0.1
        var perspective = 0.1
        var occluders = 0
        var enterLeave = true
        var twins = true
        var noise = 2
        var blur = 0
        var truthLocation: String?
        var prerender = false
        var shake = 0.0
        var pan = 0.0
        var exposure = 0.0
        var background = CodeSrcBackground.plain
        var photos: String?
        var photoCount = 0
        var distractors = 0
        var photoSize = 0.35
    }

    public static let defaultSettings = Settings()

    public static let metadata = ElementMetadata(
        factoryName: "arcodesrc", typeName: "ArCodeSrc", longName: "Moving code test source",
        klass: "Source/Video",
        description: "Renders moving barcodes and QR codes with exact ground truth, for tests and benchmarks",
        caps: ElementMetadata.rawVideoCaps(["GRAY8", "I420", "NV12"], sizes: CodeClipOptions.frameSizes), writesFrame: true)

    public static let properties: [Property<Settings>] = [
        .bool("is-live", "Is live", "Pace output by the clock like a camera", \.live, mutableInPlaying: false),
        .uint("seed", "Seed", "Seed of every random choice: the same seed gives the same clip", \.seed,
              range: 0...UInt32.max, mutableInPlaying: false),
        .uint("codes", "Codes", "Number of codes", \.codes, range: 0...64, mutableInPlaying: false),
        .string("kinds", "Kinds", "Comma-separated symbologies used in turn, named as in the detectors' 'symbologies': qrcode (or qr), ean13, code128", \.kinds,
                mutableInPlaying: false),
        .double("code-size", "Code size", "Side of a QR code as a fraction of the frame height (1D codes are 1.6 times as wide)",
                \.codeSize, range: 0.03...0.6, mutableInPlaying: false),
        .double("speed", "Speed", "Top speed of a code, frame heights per second", \.speed, range: 0...5,
                mutableInPlaying: false),
        .double("rotation-speed", "Rotation speed", "Top rotation speed of QR codes, degrees per second (1D codes rock within +/-15 degrees)",
                \.rotationSpeed, range: 0...720, mutableInPlaying: false),
        .double("scale-change", "Scale change", "Code sizes vary within 1 +/- this", \.scaleChange, range: 0...0.5,
                mutableInPlaying: false),
        .double("perspective", "Perspective", "Largest keystone tilt (top edge (1+p)/(1-p) times the bottom edge)",
                \.perspective, range: 0...0.3, mutableInPlaying: false),
        .uint("occluders", "Occluders", "Opaque bars sweeping across the frame", \.occluders, range: 0...8,
              mutableInPlaying: false),
        .bool("enter-leave", "Enter and leave", "Some codes leave through the frame's edges and come back, some appear and disappear in place",
              \.enterLeave, mutableInPlaying: false),
        .bool("twins", "Twins", "Give the last code the first code's payload", \.twins, mutableInPlaying: false),
        .uint("noise", "Noise", "Per-pixel noise, +/- gray levels", \.noise, range: 0...64, mutableInPlaying: false),
        .uint("blur", "Blur", "Box-blur radius, pixels (0 = sharp)", \.blur, range: 0...4, mutableInPlaying: false),
        .string("truth-location", "Truth location",
                "File to write the exact corners of every code on every frame to, as JSON Lines (arexport schema); unset = none",
                \.truthLocation, mutableInPlaying: false),
        .bool("prerender", "Prerender",
              "Render all num-buffers frames (which must be set) into memory when the caps are set, then replay them: each frame then costs a copy, so a benchmark measures what is downstream. Live: timestamps start at the running time of the first frame",
              \.prerender, mutableInPlaying: false),
        .double("shake", "Shake",
                "Hand shake of the camera, pixels: the whole scene wanders smoothly and jitters, each axis within +/- this (0 = still); the truth moves with it",
                \.shake, range: 0...200, mutableInPlaying: false),
        .double("pan", "Pan",
                "Camera pan speed, pixels per second: the whole scene, background included, pans back and forth over +/-10 % of the frame width (0 = none); the truth moves with it",
                \.pan, range: 0...2000, mutableInPlaying: false),
        .double("exposure", "Exposure",
                "Exposure time, seconds (0.0167 = 1/60 s; 0 = instantaneous): motion blur, each frame the average of the scene at up to 16 instants across the exposure (one per ~2 px of the fastest motion); the truth is the scene at the frame's timestamp, the middle of the exposure",
                \.exposure, range: 0...0.25, mutableInPlaying: false),
        .enumeration("background", "Background", "What the codes move over: plain gray, or a textured shelf/cardboard scene with text-like strokes",
                     typeName: "ArCodeSrcBackground", \.background, mutableInPlaying: false),
        .string("photos", "Photos",
                "Folder of real photos, searched recursively: N.png/.jpg/.webp with N.txt (expected text) or N.bin (bytes) beside it has a code; images in a 'falsepositives*' folder or with neither file have none. Decoded when the element starts; unset = none",
                \.photos, mutableInPlaying: false),
        .uint("photo-count", "Photo count",
              "Photos with a code to show as moving cards, chosen by the seed; truth: the card's quad, the expected text and \"outline\":\"card\"",
              \.photoCount, range: 0...32, mutableInPlaying: false),
        .uint("distractors", "Distractors", "Photos without a code to show as moving cards, chosen by the seed (no truth)",
              \.distractors, range: 0...32, mutableInPlaying: false),
        .double("photo-size", "Photo size", "Height of a photo card, fraction of the frame height (narrower when the photo is wider than 90 % of the frame)",
                \.photoSize, range: 0.05...1, mutableInPlaying: false),
    ]

    private let element: ElementHandle
    private let settings: SettingsStore<Settings>
    private var clip: CodeClip?
    /// Photos for the cards, decoded in `start`.
    private var photos: [ClipPhoto] = []
    private var info: VideoInfo?
    private var index = 0
    private var truthFile: UnsafeMutablePointer<FILE>?
    /// With `prerender`: every frame and its truth, rendered once.
    private var rendered: [(image: LumaPlane, truth: [CodeClipTruth])] = []
    /// With `prerender` on a live source: running time of the first frame, added to every timestamp.
    private var timestampOffset: UInt64?

    public init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
        self.settings = settings
    }

    public func propertyChanged(_ name: String) {
        if name == "is-live" { element.setLive(settings.snapshot.live) }
    }

    public func start() throws {
        index = 0
        clip = nil
        rendered = []
        timestampOffset = nil
        photos = []
        let s = settings.snapshot
        if let folder = s.photos, !folder.isEmpty {
            photos = try PhotoFolder(folder).photos(codes: s.photoCount, distractors: s.distractors, seed: UInt64(s.seed))
            cat.log(.info, element.object, "\(photos.count) photos from \(folder): " + photos.map(\.name).joined(separator: ", "))
        } else if s.photoCount + s.distractors > 0 {
            throw ElementError.settings("arcodesrc: 'photo-count' and 'distractors' need 'photos' (a folder of photos)",
                                        debug: "photo-count=\(s.photoCount) distractors=\(s.distractors)")
        }
        if let path = settings.snapshot.truthLocation, !path.isEmpty {
            guard let f = fopen(path, "w") else {
                throw ElementError.openWrite("Could not open '\(path)' for writing: \(String(cString: strerror(errno)))")
            }
            truthFile = f
        }
    }

    public func stop() {
        if let truthFile { fclose(truthFile) }
        truthFile = nil
        clip = nil
        photos = []
        rendered = []
    }

    public func fixate(_ caps: UnsafeMutablePointer<GstCaps>) -> UnsafeMutablePointer<GstCaps> {
        let caps = makeWritable(caps)
        let s = gst_caps_get_structure(caps, 0)
        gst_structure_fixate_field_nearest_int(s, "width", 1280)
        gst_structure_fixate_field_nearest_int(s, "height", 720)
        gst_structure_fixate_field_nearest_fraction(s, "framerate", 30, 1)
        return gst_caps_fixate(caps)
    }

    public func setInfo(_ info: VideoInfo) throws {
        self.info = info
        let s = settings.snapshot
        var kinds: [CodeClipKind] = []
        for name in (s.kinds ?? "").split(separator: ",") {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard let k = CodeClipKind(name: trimmed) else {
                throw ElementError.settings("Invalid value for property 'kinds': unknown kind '\(trimmed)' (known: qrcode, ean13, code128)",
                                            debug: "kinds=\(s.kinds ?? "")")
            }
            kinds.append(k)
        }
        let fps = info.fpsNumerator > 0 && info.fpsDenominator > 0 ? Double(info.fpsNumerator) / Double(info.fpsDenominator) : 30
        let options = CodeClipOptions(width: info.width, height: info.height, fps: fps, seed: UInt64(s.seed),
                                      codeCount: s.codes, kinds: kinds.isEmpty ? [.qr] : kinds, codeSize: s.codeSize,
                                      speed: s.speed, rotationSpeed: s.rotationSpeed, scaleChange: s.scaleChange,
                                      perspective: s.perspective, occluders: s.occluders, enterLeave: s.enterLeave,
                                      twins: s.twins, noise: s.noise, blurRadius: s.blur, shake: s.shake, pan: s.pan,
                                      exposure: s.exposure, background: s.background.clipBackground, photoSize: s.photoSize)
        do {
            clip = try CodeClip(options, photos: photos)
        } catch {
            throw ElementError.settings("arcodesrc cannot make this clip: \(error)", debug: "\(options)")
        }
        cat.log(.info, element.object, "clip \(info.width)x\(info.height) @ \(fps) fps, \(s.codes) codes, seed \(s.seed), "
                + "\(clip?.subsamples ?? 1) renders per frame")
        rendered = []
        if s.prerender, let clip { try prerender(clip) }
    }

    /// Renders frames 0..<num-buffers on every core into `rendered`.
    private func prerender(_ clip: CodeClip) throws {
        let count = Int(element.pointer.withMemoryRebound(to: GstBaseSrc.self, capacity: 1) { $0.pointee.num_buffers })
        guard count > 0 else {
            throw ElementError.settings("arcodesrc: 'prerender' needs 'num-buffers' (the number of frames to render)",
                                        debug: "num-buffers=\(count)")
        }
        let bytes = count * clip.options.width * clip.options.height
        guard bytes <= 8 << 30 else {
            throw ElementError.settings("arcodesrc: 'prerender' of \(count) frames would take \(bytes >> 20) MiB (at most 8 GiB)",
                                        debug: "num-buffers=\(count)")
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let frames = FrameSlots(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { i in frames.set(i, clip.frame(at: i)) }
        rendered = frames.values
        cat.log(.info, element.object, "prerendered \(count) frames in \((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000) ms")
    }

    public func fill(_ frame: VideoFrame) throws -> Bool {
        guard let clip else { throw ElementError.library("arcodesrc: no caps negotiated") }
        let (image, truth) = index < rendered.count ? rendered[index] : clip.frame(at: index)
        let dst = frame.plane(0).assumingMemoryBound(to: UInt8.self), stride = frame.stride(0)
        image.pixels.withUnsafeBufferPointer { src in
            for y in 0..<frame.height {
                (dst + y * stride).update(from: src.baseAddress! + y * image.width, count: frame.width)
            }
        }
        // Neutral chroma.
        for plane in 1..<max(1, frame.planeCount) {
            let rows = (frame.height + 1) / 2
            memset(frame.plane(plane), 128, frame.stride(plane) * rows)
        }
        let duration = info?.frameDurationNanoseconds ?? 33_333_333
        var pts = UInt64(index) * duration
        if let info, info.fpsNumerator > 0, info.fpsDenominator > 0 {
            // index × 10⁹ × d / n without overflow on endless streams.
            pts = UInt64(gst_util_uint64_scale(guint64(index), guint64(1_000_000_000) * guint64(info.fpsDenominator),
                                               guint64(info.fpsNumerator)))
        }
        if !rendered.isEmpty, element.isLive {
            if timestampOffset == nil { timestampOffset = element.runningTimeNanoseconds ?? 0 }
            pts += timestampOffset ?? 0
        }
        frame.buffer.setTimestamps(ptsNanoseconds: pts, durationNanoseconds: duration)
        if let truthFile {
            let line = clip.truthLine(frame: index, truth: truth, ptsNanoseconds: pts) + "\n"
            guard fputs(line, truthFile) >= 0, fflush(truthFile) == 0 else {
                throw ElementError.write("Could not write ground truth: \(String(cString: strerror(errno)))")
            }
        }
        index += 1
        return true
    }
}

/// Frames rendered on several threads, each into its own slot.
private final class FrameSlots: @unchecked Sendable {  // Writes under `lock`; read once every writer has finished.
    private var slots: [(image: LumaPlane, truth: [CodeClipTruth])?]
    private let lock = NSLock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ value: (image: LumaPlane, truth: [CodeClipTruth])) {
        lock.lock()
        slots[i] = value
        lock.unlock()
    }

    var values: [(image: LumaPlane, truth: [CodeClipTruth])] { slots.map { $0! } }
}

extension ElementHandle {
    /// Sources: whether the element is live.
    fileprivate var isLive: Bool {
        pointer.withMemoryRebound(to: GstBaseSrc.self, capacity: 1) { gst_base_src_is_live($0) != 0 }
    }

    /// The element's running time now (clock time minus base time), nanoseconds; nil without a clock.
    fileprivate var runningTimeNanoseconds: UInt64? {
        guard let clock = gst_element_get_clock(pointer) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(clock)) }
        let now = gst_clock_get_time(clock), base = gst_element_get_base_time(pointer)
        return now >= base ? UInt64(now - base) : 0
    }
}
