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

/// At most one decode in flight off the streaming thread, results collected by the streaming
/// thread. New work is refused (not queued) while a decode runs or its result waits: a late frame
/// is never decoded. `cancel` (flush, seek, caps change) drops the waiting result, the result of
/// the decode in progress when it arrives, and work the executor has not started yet.
public final class DecodeScheduler<Output: Sendable>: @unchecked Sendable {  // `state` is guarded by `lock`; work runs on the executor.
    private struct State {
        /// Submitted, not finished nor dropped before it started.
        var busy = false
        /// The work in flight has begun on the executor.
        var running = false
        /// Bumped by `cancel` and `stop`: work and results of an older generation are dropped.
        var generation = 0
        var result: Output?
        var stopped = false
    }

    private let executor: any DecodeExecutor
    private let lock = NSLock()
    private var state = State()

    /// A scheduler running its work on `executor`.
    public init(executor: any DecodeExecutor) {
        self.executor = executor
    }

    /// Hands `work` to the executor; false (and nothing happens) while a decode is in flight, a
    /// result waits to be collected, or after `stop`.
    public func submit(_ work: @escaping @Sendable () -> Output) -> Bool {
        let generation: Int? = locked {
            guard !$0.busy, $0.result == nil, !$0.stopped else { return nil }
            $0.busy = true
            return $0.generation
        }
        guard let generation else { return false }
        executor.execute { [self] in run(work, generation: generation) }
        return true
    }

    /// The finished result, if any (once).
    public func takeResult() -> Output? {
        locked { state in
            defer { state.result = nil }
            return state.result
        }
    }

    /// Whether a decode is in flight (submitted, neither finished nor dropped).
    public var isBusy: Bool { locked { $0.busy } }

    /// Drops the waiting result, the result of the decode in progress, and work not started yet.
    public func cancel() {
        locked {
            $0.generation += 1
            $0.result = nil
            // Work not started belongs to frames before the flush: it will not run.
            if !$0.running { $0.busy = false }
        }
    }

    /// Takes no more work, drops what waits, and returns once the executor has ended the decode in
    /// progress (its result is dropped).
    public func stop() {
        locked {
            $0.stopped = true
            $0.generation += 1
            $0.result = nil
        }
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
            if $0.generation == generation { $0.result = output }
        }
    }

    private func locked<R>(_ body: (inout State) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }
}
