import Foundation

/// Where a ``DecodeScheduler`` runs its work: a dedicated low-priority thread in the elements, a
/// queue the test steps in tests (so "the result reaches frame N + k" is asserted exactly).
public protocol DecodeExecutor: Sendable {
    /// Runs `work` once, later, off the caller's thread (or when a test says so).
    func execute(_ work: @escaping @Sendable () -> Void)
    /// Takes no more work and returns once the work in progress has ended.
    func shutdown()
}

/// The decode a frame asks the worker for.
public enum DecodeKind: Sendable, Equatable {
    /// A scan of the whole frame, the only source of new codes, with the live tracks' re-decodes.
    case full
    /// Re-decodes in the regions of the live tracks, confirming them.
    case regions
}

/// Which frames ask for which decode: a full scan at once when none was ever asked for, then at
/// most every `interval` frames (with the live tracks' re-decodes in the same job); region
/// re-decodes of the live tracks on the other frames. Value type: reset by assigning a new one.
public struct DecodeCadence: Sendable, Equatable {
    /// Frames ended since the last full scan started (or since the start).
    public private(set) var framesSinceFull = 0
    private var fullStarted = false

    public init() {}

    /// The decode to ask for on this frame: `tracking` whether any track is live, `interval` the
    /// frames between full scans (at least 1). Nil: nothing to decode.
    public func request(tracking: Bool, interval: Int) -> DecodeKind? {
        if framesSinceFull >= interval || !fullStarted { return .full }
        return tracking ? .regions : nil
    }

    /// A decode of `kind` started on this frame (the worker took it, or it ran in place).
    public mutating func started(_ kind: DecodeKind) {
        if kind == .full {
            framesSinceFull = 0
            fullStarted = true
        }
    }

    /// The frame is done.
    public mutating func frameEnded() {
        framesSinceFull += 1
    }
}

/// How long a frame waits for the decode in flight, so that its readings reach the frame they
/// were made on rather than the next: up to `budgetMilliseconds` (never more than `frameShare` of
/// a frame, so the streaming thread keeps up), and only for a job whose readings are expected, by
/// the recent jobs of its kind, to be ready within that. A full scan's are ready when its located
/// regions' first decodes have ended: it hands over the codes they read while it goes on
/// (`DecodeScheduler.takeResultOrParts`). A job expected to take longer (a 4K full scan) is not
/// waited for at all: the frame goes on at once and the reading is carried to a later frame.
public struct DecodeWait: Sendable, Equatable {
    /// Longest wait on one frame, milliseconds; 0: never wait.
    public var budgetMilliseconds: Double
    /// A frame's duration, milliseconds, when known.
    public var frameMilliseconds: Double?
    /// A frame's pixels, when known: before any full scan has finished, one is expected to have its
    /// readings ready after `fullNanosecondsPerPixel` per pixel.
    public var framePixels: Int?
    /// Per kind: the expected time until a job's readings are ready, milliseconds (a running mean of the recent ones).
    private var expected: [DecodeKind: Double] = [:]
    /// Weight of the newest job in `expected`.
    static let newestWeight = 0.25
    /// Largest share of a frame's duration spent waiting.
    public static let frameShare = 0.5
    /// A full scan's time until its readings are ready, per pixel of the frame, before any was
    /// measured, nanoseconds: 1080p's first decodes ended at 12.5 ms median on the 2-core machine
    /// of stops 44–47 (6 ns per pixel), 4K's at 17.5–58. So a stream's first 1080p frames wait for
    /// their scans, and a 4K stream's do not (each waited 16 ms for readings that came later).
    public static let fullNanosecondsPerPixel = 6.0

    public init(budgetMilliseconds: Double, frameMilliseconds: Double? = nil, framePixels: Int? = nil) {
        self.budgetMilliseconds = budgetMilliseconds
        self.frameMilliseconds = frameMilliseconds
        self.framePixels = framePixels
    }

    /// The longest wait on one frame, milliseconds: the budget, within `frameShare` of a frame.
    public var longestMilliseconds: Double {
        max(0, min(budgetMilliseconds, frameMilliseconds.map { $0 * Self.frameShare } ?? .infinity))
    }

    /// A job of `kind` had its readings ready `readyAfter` milliseconds after it started (a full
    /// scan: its located regions' first decodes ended then; a region job: it ended).
    public mutating func finished(_ kind: DecodeKind, readyAfter milliseconds: Double) {
        expected[kind] = expected[kind].map { $0 + Self.newestWeight * (milliseconds - $0) } ?? milliseconds
    }

    /// Milliseconds to wait for a job of `kind` that has run for `elapsed` ms: the longest wait when
    /// its readings are expected to be ready (`finished`) within it, less `elapsed`, else 0. A kind
    /// not seen yet is expected at once, but a full scan of `framePixels` after
    /// `fullNanosecondsPerPixel` per pixel.
    public func wait(for kind: DecodeKind, elapsed: Double) -> Double {
        let longest = longestMilliseconds
        let prior = kind == .full ? framePixels.map { Double($0) * Self.fullNanosecondsPerPixel / 1e6 } ?? 0 : 0
        guard longest > 0, (expected[kind] ?? prior) - elapsed <= longest else { return 0 }
        return longest
    }
}

/// At most one decode in flight off the streaming thread, results collected by the streaming
/// thread. New work is refused (not queued) while a decode runs or its result waits: a late frame
/// is never decoded. A decode may hand over parts of its result before it ends (`publish`), for a
/// frame that cannot wait for the whole; the whole result replaces the parts not yet taken.
/// `cancel` (flush, seek, caps change) drops the waiting result and parts, the result and parts of
/// the decode in progress when they arrive, and work the executor has not started yet.
public final class DecodeScheduler<Output: Sendable>: @unchecked Sendable {  // `state` is guarded by `condition`; work runs on the executor.
    private struct State {
        /// Submitted, not finished nor dropped before it started.
        var busy = false
        /// The work in flight has begun on the executor.
        var running = false
        /// Bumped by `cancel` and `stop`: work and results of an older generation are dropped.
        var generation = 0
        /// Work accepted so far: parts are taken from the work in flight only.
        var submitted = 0
        var result: Output?
        /// Parts handed over by the decode in flight, not yet taken.
        var parts: [Output] = []
        var stopped = false
    }

    private let executor: any DecodeExecutor
    /// Guards `state`; signalled when a result is stored or dropped work frees the scheduler.
    private let condition = NSCondition()
    private var state = State()

    /// A scheduler running its work on `executor`.
    public init(executor: any DecodeExecutor) {
        self.executor = executor
    }

    /// Hands `work` to the executor; false (and nothing happens) while a decode is in flight, a
    /// result waits to be collected, or after `stop`.
    public func submit(_ work: @escaping @Sendable () -> Output) -> Bool {
        submit { _ in work() }
    }

    /// `submit` of work that may hand over parts of its result before it ends, by calling
    /// `publish` from any thread (a part handed over after the work returned is dropped);
    /// `takeResultOrParts` collects them.
    public func submit(_ work: @escaping @Sendable (_ publish: @escaping @Sendable (Output) -> Void) -> Output) -> Bool {
        let accepted: (generation: Int, job: Int)? = locked {
            guard !$0.busy, $0.result == nil, !$0.stopped else { return nil }
            $0.busy = true
            $0.submitted += 1
            return ($0.generation, $0.submitted)
        }
        guard let accepted else { return false }
        executor.execute { [self] in
            run({ work { [self] part in publish(part, generation: accepted.generation, job: accepted.job) } },
                generation: accepted.generation)
        }
        return true
    }

    /// The finished result, if any (once).
    public func takeResult() -> Output? {
        locked { state in
            defer { state.result = nil }
            return state.result
        }
    }

    /// The finished result, waiting for it until `deadline` while a decode is in flight (once);
    /// when the wait ends without it, the parts the decode in flight has handed over since they were
    /// last taken, oldest first (taken; none once its result is stored: that holds them). One step
    /// under the lock: a decode that ends as the wait ends gives its result or its parts, never
    /// neither. Returns at once when a result waits or nothing is in flight.
    public func takeResultOrParts(waitingUntil deadline: Date) -> (result: Output?, parts: [Output]) {
        condition.lock()
        defer { condition.unlock() }
        while state.result == nil, state.busy, !state.stopped, condition.wait(until: deadline) {}
        if let result = state.result {
            state.result = nil
            return (result, [])
        }
        defer { state.parts = [] }
        return (nil, state.parts)
    }

    /// Whether a decode is in flight (submitted, neither finished nor dropped).
    public var isBusy: Bool { locked { $0.busy } }

    /// Drops the waiting result, the result of the decode in progress, and work not started yet.
    public func cancel() {
        locked {
            $0.generation += 1
            $0.result = nil
            $0.parts = []
            // Work not started belongs to frames before the flush: it will not run.
            if !$0.running { $0.busy = false }
        }
        condition.broadcast()
    }

    /// Takes no more work, drops what waits, and returns once the executor has ended the decode in
    /// progress (its result is dropped).
    public func stop() {
        locked {
            $0.stopped = true
            $0.generation += 1
            $0.result = nil
            $0.parts = []
        }
        condition.broadcast()
        executor.shutdown()
    }

    private func run(_ work: () -> Output, generation: Int) {
        let current = locked {
            guard $0.generation == generation, !$0.stopped else { return false }
            $0.running = true
            return true
        }
        guard current else { return }
        let output = work()
        locked {
            $0.busy = false
            $0.running = false
            if $0.generation == generation {
                $0.result = output
                $0.parts = []
            }
        }
        condition.broadcast()
    }

    private func publish(_ part: Output, generation: Int, job: Int) {
        locked {
            guard $0.generation == generation, $0.submitted == job, $0.busy, !$0.stopped else { return }
            $0.parts.append(part)
        }
    }

    private func locked<R>(_ body: (inout State) -> R) -> R {
        condition.lock()
        defer { condition.unlock() }
        return body(&state)
    }
}
