import ARCore
import ARDetect
import ARGst
import ARVision
import CGStreamer
import Foundation

private let cat = DebugCategory("arbarcodetrack", description: "arbarcode detector and tracker")

/// Where `arbarcodetrack` runs its full-frame decodes.
public enum DetectMode: Int32, PropertyEnum {
    /// `async` on live sources (cameras), `sync` otherwise (files), decided when caps are set.
    case auto = 0
    /// On the streaming thread, every `detect-interval` frames: deterministic output.
    case sync = 1
    /// On a worker thread; the streaming thread waits for it at most `async-wait`, and results that
    /// arrive later are carried forward.
    case async = 2

    public var nick: String { ["auto", "sync", "async"][Int(rawValue)] }
    public var label: String {
        ["Async on live sources, sync otherwise", "Decode on the streaming thread (deterministic)",
         "Decode on a worker thread (waits at most async-wait)"][Int(rawValue)]
    }
}

/// `arbarcodetrack`: `arbarcodedetect` and `artrack` in one element, the one most pipelines use.
///
/// Every frame: each track is moved by the motion measured in the image (`TrackingStage`), then
/// decodes correct it. `sync`: a full-frame decode every `detect-interval` frames and re-decodes
/// around each track on its turn (every `redecode-interval` frames), all on the streaming thread.
/// `async`: a worker thread decodes the whole frame (at most every `detect-interval` frames) with
/// the re-decodes around the tracks due in the same job, and between full-frame decodes the
/// re-decodes alone. A frame waits for its job up to `async-wait` when the recent jobs say its
/// readings should be ready within that (a full scan's: its regions' first decodes, whose codes it
/// hands over early; `DecodeWait`); a result that arrives later, at frame N+k, is carried forward
/// by the tracked motion. Every live track is reported on every frame.
public final class ArBarcodeTrack: VideoFilterElement {
    public struct Settings: Sendable {
        var symbologies: String? = "all"
        var detectMode = DetectMode.auto
        var detectInterval = 1
        /// Frames between a tracked code's re-decodes (`RedecodeSchedule`). 2 by default: on the
        /// ten kept camera clips the same coverage and corner error as 1 for 10 % fewer instructions;
        /// at 3 a wrong outline from one re-decode (a card over a 1D code) stays uncorrected for frames.
        var redecodeInterval = 2
        /// Async: longest wait per frame for the worker's job, milliseconds (`DecodeWait`). 16 by
        /// default: on the camera clips at 1080p a full scan's first decodes end at 12–16 ms (median;
        /// p90 18–24 ms; 2-core Xeon), so most new codes are drawn on the frame they appear on; at 4K
        /// they end at 16–58 ms and are mostly not waited for.
        var asyncWaitMilliseconds = 16.0
        /// Regions only: a video gives a missed code another chance on the next frame, and the
        /// whole-frame fallback of `auto` stalls the decodes (300 ms at 4K). With `locate=auto` the
        /// fallback adds no 1D readings: the region passes see the code again on the next frames.
        var detector = {
            var o = DetectorOptions(locate: .regions, threads: 0)
            o.wholeFrameAdds1D = false
            o.quietFrames = ArBarcodeTrack.quietFrames
            o.retryPassesEvery = ArBarcodeTrack.retryPassesEvery
            return o
        }()
        var tracking = TrackingSettings()
    }

    public static let defaultSettings = Settings()
    /// Frames an unverified region that no pass read is left alone while it stays in place
    /// (`DetectorOptions.quietFrames`, property `quiet-frames`). Off by default: at 3, camera seed 11
    /// lost 0.2 points of sync coverage and 1 of live coverage for 9 % fewer instructions.
    static let quietFrames = 0
    /// A code-like region left unread at the same place on 2 frames in a row gets every pass on
    /// one such frame in this many, the first pass only on the others (`DetectorOptions.retryPassesEvery`,
    /// property `retry-passes-every`). On camera seeds 3, 11, 13 and 17, against 0 in the same runs:
    /// 15–27 % more frames per second at 4, coverage the same at 3 and 4; at 8, seed 17 lost 0.7 points.
    static let retryPassesEvery = 3

    public static let metadata = ElementMetadata(
        factoryName: "arbarcodetrack", typeName: "ArBarcodeTrack", longName: "Barcode detector and tracker",
        klass: "Filter/Analyzer/Video",
        description: "Finds barcodes and QR codes, follows each with a stable id at the frame rate, and attaches the tracks as region-of-interest metadata",
        caps: TrackLuma.caps, writesFrame: false)

    public static let properties: [Property<Settings>] = [
        .string("symbologies", "Symbologies",
                "Comma-separated symbologies to decode, or 'all'. Known: " + Symbology.all.map(\.name).joined(separator: ", "),
                \.symbologies),
        .enumeration("detect-mode", "Detect mode",
                     "Where full-frame decodes run: a worker thread (async: the streaming thread waits at most async-wait, for cameras), the streaming thread (sync: deterministic, for files), or auto (async on live sources)",
                     typeName: "ArDetectMode", \.detectMode, mutableInPlaying: false),
        .uint("detect-interval", "Detect interval",
              "Frames between full-frame decodes (sync: exactly; async: at least); tracks follow the image in between and re-decodes in their regions confirm them (new codes come from full-frame decodes)",
              \.detectInterval, range: 1...1000),
        .uint("redecode-interval", "Re-decode interval",
              "Frames between re-decodes of a tracked code, spread over the frames by track id (1: every track on every frame; async: "
                  + "a job takes the tracks due on the frame it starts). A code not read on its turn is retried on every frame "
                  + "until it is; between re-decodes it follows the image motion",
              \.redecodeInterval, range: 1...30),
        .double("async-wait", "Async wait",
                "Async: longest time in milliseconds the streaming thread waits on a frame for the worker's decode in flight "
                    + "(at most half a frame), when the readings of decodes of its kind are expected, from the recent ones, to be ready "
                    + "within it (full-frame decodes hand over the codes their located regions' first decodes read, when the wait ends): "
                    + "they then reach this frame instead of a later one, and new codes are drawn on the frame they appear on. Decodes "
                    + "expected to take longer are not waited for. 0: never waits",
                \.asyncWaitMilliseconds, range: 0...1000),
    ] + CodeDetectorStage.properties(\.detector) + TrackingSettings.properties(\.tracking)

    public static var signals: [SignalSpec] { TrackEvents.signals }

    /// One run's state: made in `start`, dropped in `stop`; a flush restarts its schedules.
    private final class State {
        let decoder: TrackDecoder
        let stage: TrackingStage
        var worker: TrackDecodeWorker?
        /// The worker's decoder, made and warmed in `start`, until the first caps hand it over (or drop it: sync).
        var workerDecoder: TrackDecoder?
        /// Resolved at the first caps: whether decodes run on the worker.
        var async: Bool?
        /// Which frames ask for a full scan or region re-decodes.
        var cadence = DecodeCadence()
        /// The luma of the frame the worker is decoding, to carry new codes forward; kept after a
        /// flush, as a cancelled job may still be reading it (`TrackingStage.begin`'s `lent`).
        var jobPyramid: LumaPyramid?
        /// The job in flight: its kind, and when it was handed over (`DispatchTime` ns).
        var inFlight: (kind: DecodeKind, since: UInt64)?
        /// How long a frame waits for the job in flight.
        var wait = DecodeWait(budgetMilliseconds: 0)
        /// Async: the last full scan's located regions, shown until the next full scan's arrive.
        var located: [BarcodeRegion] = []
        /// Which tracks are re-decoded on each frame.
        var schedule = RedecodeSchedule()

        init(decoder: TrackDecoder, stage: TrackingStage) {
            self.decoder = decoder
            self.stage = stage
        }

        /// Forgets the schedules, the job in flight and the streaming thread's decoder's
        /// memory of places (flush; the worker's decoder forgets on its next job, `TrackDecodeWorker.cancel`).
        func restart() {
            decoder.reset()
            cadence = DecodeCadence()
            inFlight = nil
            located = []
            schedule.reset()
        }
    }

    private let element: ElementHandle
    private let settings: SettingsStore<Settings>
    private var state: State?
    private let stats = ElementStats()

    /// Where async decodes run; nil (the default): a thread of their own. Tests set a
    /// `SteppedExecutor` to choose the frame each result arrives on.
    nonisolated(unsafe) static var workerExecutor: (@Sendable () -> any DecodeExecutor)?  // Set by tests before a pipeline starts, read at caps.
    /// Called on a decoding thread after each part of a job is handed over (`TrackDecodeWorker`);
    /// nil (the default): nothing. Tests hold a job there.
    nonisolated(unsafe) static var workerPartHandedOver: (@Sendable () -> Void)?  // Set by tests before a pipeline starts, read at caps.

    public init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
        self.settings = settings
    }

    public func start() throws {
        let s = settings.snapshot
        state = State(decoder: try TrackDecoder(symbologies: s.symbologies, options: s.detector),
                      stage: TrackingStage(configuration: s.tracking.configuration))
        // Off the streaming thread: the decoders scan a small frame and forget it
        // (`CodeDetectorStage.warmUp`); async may be chosen at the first caps, so its decoder is made here.
        state?.decoder.warmUp()
        if s.detectMode != .sync {
            state?.workerDecoder = try TrackDecoder(symbologies: s.symbologies, options: s.detector)
            state?.workerDecoder?.warmUp()
        }
        stats.reset()
    }

    public func stop() {
        state?.worker?.stop()
        state = nil
    }

    public func setInfo(_ info: VideoInfo) throws {
        if let d = info.frameDurationNanoseconds {
            state?.stage.frameDurationNanoseconds = d
            stats.frameDurationNanoseconds = d
        }
        guard let state else { return }
        // The jobs' times at the old size say nothing of the new one's; no rate, no cap by it.
        state.wait = DecodeWait(budgetMilliseconds: settings.snapshot.asyncWaitMilliseconds,
                                frameMilliseconds: info.frameDurationNanoseconds.map { Double($0) / 1e6 },
                                framePixels: info.width * info.height)
        state.stage.prepare(width: info.width, height: info.height)
        // New caps: both decoders' memory of places starts afresh, as after a flush (the worker's on its next job).
        state.decoder.reset()
        state.worker?.cancel()
        state.inFlight = nil
        guard state.async == nil else { return }
        let s = settings.snapshot
        let useWorker = s.detectMode == .async || (s.detectMode == .auto && TrackLiveness.upstreamIsLive(element))
        state.async = useWorker
        if useWorker {
            state.worker = TrackDecodeWorker(decoder: try state.workerDecoder ?? TrackDecoder(symbologies: s.symbologies, options: s.detector),
                                             executor: Self.workerExecutor?(), partHandedOver: Self.workerPartHandedOver)
        }
        state.workerDecoder = nil
        cat.log(.info, element.object, "decoding \(useWorker ? "on a worker thread (async)" : "on the streaming thread (sync)")")
    }

    public func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool {
        if event.isFlushStop {
            state?.stage.reset()
            state?.worker?.cancel()
            state?.restart()
            stats.reset()
        }
        return true
    }

    /// Region re-decodes confirm the codes tracked there; only full scans start tracks. A region
    /// reading of a code no track holds (a misreading, or a code swapped in place) is left to the
    /// next full scan.
    static func confirming(_ detections: [Detection], _ live: [Track]) -> [Detection] {
        detections.filter { d in live.contains { $0.symbology == d.symbology && $0.payload == d.payload } }
    }

    /// Of `detections`, those that start a track on their own: 2D codes, and 1D readings on at
    /// least `confirm` scan lines (as the tracker counts them: at least one) that the frame's edge
    /// cannot have cut short (`Detection.mayBeCutShort`: those need readings on several frames).
    /// Another 1D reading waits for the whole scan, which holds it again: taken from both, one
    /// frame's reading would count as two.
    static func startingAlone(_ detections: [Detection], confirm: Int) -> [Detection] {
        detections.filter { Detection.isSelfChecking(symbology: $0.symbology) || max(1, $0.quality) >= confirm && !$0.mayBeCutShort }
    }

    /// Located regions as the buffer carries them: class and quad, no payload, no id.
    static func regions(_ located: [LocatedRegion]) -> [BarcodeRegion] {
        located.map { BarcodeRegion(locatedClass: $0.kind.rawValue, quad: $0.quad) }
    }

    public func transform(_ frame: VideoFrame) throws {
        guard let state, let luma = frame.trackLuma else { return }
        let decoder = state.decoder, stage = state.stage
        stats.begin()
        let s = settings.snapshot
        try decoder.reconfigure(symbologies: s.symbologies, options: s.detector)
        stage.configure(s.tracking)
        let live = stage.begin(frame: frame, luma: luma, lent: state.jobPyramid, forEach: decoder.forEach)
        state.schedule.interval = s.redecodeInterval
        var detections: [Detection] = []
        /// Time decoding on this frame (sync) or of the worker's results collected on it (async).
        var decodeMilliseconds: Double?
        if let worker = state.worker {
            // A result of an earlier frame, then this frame's job, waited for when its readings should be ready in time.
            var results: [(result: TrackDecodeWorker.Result, pyramid: LumaPyramid?)] = []
            if let result = worker.takeResult() {
                results.append((result, state.jobPyramid))
                state.inFlight = nil
            }
            let redecode = live.filter { state.schedule.isDue($0.id, frame: stage.frameIndex) }
            if let kind = state.cadence.request(tracking: !redecode.isEmpty, interval: s.detectInterval), let plane = stage.current?.levels[0],
               worker.submit(.init(plane: plane, frame: stage.frameIndex, kind: kind, tracks: redecode,
                                   skipping: stage.seenCodes(live), pyramid: stage.current,
                                   symbologies: s.symbologies, options: s.detector)) {
                state.jobPyramid = stage.current
                state.cadence.started(kind)
                state.inFlight = (kind, DispatchTime.now().uptimeNanoseconds)
            }
            state.wait.budgetMilliseconds = s.asyncWaitMilliseconds
            // A full scan still running when the wait ends: the codes it has read so far, taken as the
            // wait ends (a job ending just after would otherwise hold them until a later frame).
            var parts: [TrackDecodeWorker.Result] = []
            if let flight = state.inFlight {
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - flight.since) / 1e6
                let wait = state.wait.wait(for: flight.kind, elapsed: elapsed)
                let taken = worker.takeResultOrParts(waitingUntil: Date(timeIntervalSinceNow: wait / 1000))
                if let result = taken.result {
                    results.append((result, state.jobPyramid))
                    state.inFlight = nil
                }
                parts = taken.parts
            }
            for (result, _) in results { state.wait.finished(result.full ? .full : .regions, readyAfter: result.readyMilliseconds) }
            // A full scan of this frame stands for an earlier result; region re-decodes are added to it,
            // newest first (the tracker merges two readings of one code, keeping the first on ties).
            var located: [BarcodeRegion]?
            // Every job collected counts in the stats, a superseded one too.
            if !results.isEmpty { decodeMilliseconds = results.map(\.result.milliseconds).reduce(0, +) }
            for (result, pyramid) in results.suffix(results.last?.result.full == true ? 1 : 2).reversed() {
                let found = result.detections + Self.confirming(result.tracked, live)
                let carried = stage.carry(found, from: result.frame, pyramid: pyramid)
                detections += carried
                if result.full, located == nil { located = Self.regions(result.located) }
                cat.log(.log, element.object, "worker: \(found.count) codes from frame \(result.frame) (\(result.full ? "full" : "regions"), \(Int(result.milliseconds)) ms), \(carried.count) carried to \(stage.frameIndex)")
            }
            if let located { state.located = located }
            // Of the parts, the codes a track starts from alone; the whole result, on a later frame,
            // holds them again.
            for part in parts {
                let found = Self.startingAlone(part.detections, confirm: s.tracking.confirm)
                let carried = stage.carry(found, from: part.frame, pyramid: state.jobPyramid)
                detections += carried
                cat.log(.log, element.object, "worker: \(found.count) codes read early in frame \(part.frame)'s scan, \(carried.count) carried to \(stage.frameIndex)")
            }
        } else {
            let plane = stage.current?.levels[0] ?? LumaPlane(copying: luma)
            state.located = []
            let due = live.filter { state.schedule.isDue($0.id, frame: stage.frameIndex) }
            let t0 = DispatchTime.now().uptimeNanoseconds
            defer { decodeMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6 }
            if state.cadence.framesSinceFull % s.detectInterval == 0 {
                // New codes from the full decode; tracked ones from re-decodes in their regions.
                let (result, tracked) = decoder.full(plane, skipping: stage.seenCodes(live), andRegions: due, pyramid: stage.current)
                detections = result.codes + Self.confirming(tracked, live)
                state.located = Self.regions(result.located)
                state.cadence.started(.full)
            } else if !due.isEmpty {
                detections = Self.confirming(decoder.regions(plane, due), live)
            }
        }
        state.cadence.frameEnded()
        let (update, events) = stage.finish(detections, located: state.located, frame: frame)
        state.schedule.read(update.tracks.filter { $0.state == .detected }.map(\.id), frame: stage.frameIndex)
        state.schedule.forget(update.removed.map(\.id))
        TrackEvents.publish(events, element: element, messages: s.tracking.messages, updates: s.tracking.messageUpdates)
        if let warning = stage.limitWarning(update) { element.postWarning(.settings(warning)) }
        cat.log(.log, element.object, "\(detections.count) detections, \(update.tracks.count) tracks")
        stats.end(frame, intervalSeconds: s.tracking.statsInterval, decodeMilliseconds: decodeMilliseconds,
                  counts: TrackingSettings.counts(update, refused: stage.refusedTracks), element: element)
    }
}
