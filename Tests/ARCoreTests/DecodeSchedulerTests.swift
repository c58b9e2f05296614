import ARCore
import Foundation
import XCTest

/// How often each job's work ran.
private final class RunLog: @unchecked Sendable {  // `runs` is guarded by `lock`.
    private let lock = NSLock()
    private var runs: [Int] = []

    func record(_ job: Int) {
        lock.lock()
        runs.append(job)
        lock.unlock()
    }

    var jobs: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return runs
    }
}

/// The parts taken, take by take.
private final class PartsLog: @unchecked Sendable {  // `takes` is guarded by `lock`.
    private let lock = NSLock()
    private var takes: [[Int]] = []

    func record(_ parts: [Int]) {
        lock.withLock { takes.append(parts) }
    }

    var parts: [[Int]] { lock.withLock { takes } }
}

/// A work's `publish`, kept past its return.
private final class PublishStash: @unchecked Sendable {  // `kept` is guarded by `lock`.
    private let lock = NSLock()
    private var kept: (@Sendable (Int) -> Void)?

    func keep(_ publish: @escaping @Sendable (Int) -> Void) {
        lock.withLock { kept = publish }
    }

    func publish(_ part: Int) {
        lock.withLock { kept }?(part)
    }
}

final class DecodeSchedulerTests: XCTestCase {
    private let executor = SteppedExecutor()
    private lazy var scheduler = DecodeScheduler<Int>(executor: executor)
    private let log = RunLog()

    private func submit(_ job: Int) -> Bool {
        scheduler.submit { [log] in
            log.record(job)
            return job
        }
    }

    func testTheResultReachesTheFirstFrameAfterTheWorkRanAndOnlyOnce() throws {
        // Frame 0 submits; the worker runs between frames 2 and 3.
        XCTAssertTrue(submit(0))
        XCTAssertNil(scheduler.takeResult(), "frame 1")
        XCTAssertNil(scheduler.takeResult(), "frame 2")
        XCTAssertTrue(executor.runNext(), "the work was handed to the executor")
        XCTAssertEqual(try XCTUnwrap(scheduler.takeResult(), "frame 3: the worker delivered"), 0)
        XCTAssertNil(scheduler.takeResult(), "frame 4: collected once")
        XCTAssertEqual(log.jobs, [0])
    }

    func testOneDecodeInFlightFurtherWorkIsRefusedNotQueued() {
        XCTAssertTrue(submit(1))
        XCTAssertFalse(submit(2))
        XCTAssertFalse(submit(3))
        XCTAssertEqual(executor.pending, 1)
        XCTAssertTrue(scheduler.isBusy)
        executor.runNext()
        XCTAssertFalse(scheduler.isBusy)
        XCTAssertEqual(log.jobs, [1], "refused work never runs")
    }

    func testAWaitingResultRefusesNewWorkUntilCollected() {
        XCTAssertTrue(submit(1))
        executor.runNext()
        XCTAssertFalse(submit(2), "the result of frame 1 waits")
        XCTAssertEqual(scheduler.takeResult(), 1)
        XCTAssertTrue(submit(2))
        executor.runNext()
        XCTAssertEqual(scheduler.takeResult(), 2)
    }

    func testCancelDropsWorkNotStartedAndFreesTheWorker() {
        XCTAssertTrue(submit(1))
        scheduler.cancel()
        XCTAssertFalse(scheduler.isBusy)
        XCTAssertTrue(submit(2), "new frames after the flush are taken at once")
        while executor.runNext() {}
        XCTAssertEqual(log.jobs, [2], "the work of frames before the flush never ran")
        XCTAssertEqual(scheduler.takeResult(), 2)
    }

    func testCancelDuringADecodeDropsItsLateResultAndKeepsOneInFlight() {
        let executor = SteppedExecutor()
        let scheduler = DecodeScheduler<Int>(executor: executor)
        let refusedWhileRunning = RunLog()
        XCTAssertTrue(scheduler.submit {
            // A flush arrives while the decode runs: the decoder is still in use.
            scheduler.cancel()
            refusedWhileRunning.record(scheduler.submit { 2 } ? 0 : 1)
            return 1
        })
        executor.runNext()
        XCTAssertEqual(refusedWhileRunning.jobs, [1], "no second decode while one runs")
        XCTAssertEqual(executor.pending, 0)
        XCTAssertNil(scheduler.takeResult(), "the late result belongs to frames before the flush")
        XCTAssertFalse(scheduler.isBusy)
        XCTAssertTrue(scheduler.submit { 3 })
        executor.runNext()
        XCTAssertEqual(scheduler.takeResult(), 3)
    }

    func testCancelDropsAWaitingResult() {
        XCTAssertTrue(submit(1))
        executor.runNext()
        scheduler.cancel()
        XCTAssertNil(scheduler.takeResult())
        XCTAssertTrue(submit(2))
    }

    func testStopDropsWaitingWorkRefusesNewWorkAndShutsTheExecutorDown() {
        XCTAssertTrue(submit(1))
        scheduler.stop()
        XCTAssertTrue(executor.shutDown)
        while executor.runNext() {}
        XCTAssertEqual(log.jobs, [], "work not started when stopping never runs")
        XCTAssertFalse(submit(2))
        XCTAssertNil(scheduler.takeResult())
    }

    func testARealThreadDeliversTheResult() throws {
        let queue = DispatchQueue(label: "decode-test")
        let scheduler = DecodeScheduler<Int>(executor: QueueExecutor(queue: queue))
        XCTAssertTrue(scheduler.submit { 7 })
        queue.sync {}  // the work queued before this has run
        XCTAssertEqual(scheduler.takeResult(), 7)
        scheduler.stop()
    }

    /// The streaming thread's wait ends when the worker delivers, with its result, not at the deadline.
    func testAWaitEndsWithTheResultTheWorkerDeliversMeanwhile() throws {
        XCTAssertTrue(submit(4))
        let executor = executor
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) { executor.runNext() }
        // Only the worker's wake-up ends this wait before its deadline, a minute away.
        let deadline = Date(timeIntervalSinceNow: 60)
        XCTAssertEqual(scheduler.takeResultOrParts(waitingUntil: deadline).result, 4)
        XCTAssertLessThan(Date(), deadline, "woken by the result")
        XCTAssertNil(scheduler.takeResult(), "collected once")
    }

    /// Parts a decode hands over before it ends are taken by the frames meanwhile, each once and in
    /// order; those not taken when its whole result is stored are dropped (the result holds them).
    func testPartsHandedOverBeforeTheResultAreTakenOnceAndTheResultReplacesTheRest() throws {
        let taken = PartsLog()
        let scheduler = scheduler
        XCTAssertTrue(scheduler.submit { publish in
            publish(10)
            taken.record(scheduler.takeResultOrParts(waitingUntil: .distantPast).parts)
            publish(11)
            publish(12)
            taken.record(scheduler.takeResultOrParts(waitingUntil: .distantPast).parts)
            taken.record(scheduler.takeResultOrParts(waitingUntil: .distantPast).parts)
            publish(13)
            return 99
        })
        XCTAssertEqual(scheduler.takeResultOrParts(waitingUntil: .distantPast).parts, [], "nothing handed over before the work runs")
        XCTAssertTrue(executor.runNext())
        XCTAssertEqual(taken.parts, [[10], [11, 12], []])
        let after = scheduler.takeResultOrParts(waitingUntil: .distantPast)
        XCTAssertEqual(after.parts, [], "13: stored with the result")
        XCTAssertEqual(after.result, 99)
    }

    /// A wait that ends before the decode does returns the parts handed over so far (taken); one
    /// that the decode outlasts returns its result alone (the result holds the parts).
    func testAWaitThatEndsFirstReturnsThePartsHandedOverSoFar() {
        let scheduler = scheduler, executor = executor
        let published = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), ended = DispatchSemaphore(value: 0)
        XCTAssertTrue(scheduler.submit { publish in
            publish(7)
            published.signal()
            release.wait()
            publish(8)
            return 99
        })
        DispatchQueue.global().async {
            executor.runNext()
            ended.signal()
        }
        published.wait()
        let first = scheduler.takeResultOrParts(waitingUntil: Date(timeIntervalSinceNow: 0.01))
        XCTAssertNil(first.result)
        XCTAssertEqual(first.parts, [7])
        XCTAssertEqual(scheduler.takeResultOrParts(waitingUntil: .distantPast).parts, [], "taken once")
        release.signal()
        ended.wait()
        let second = scheduler.takeResultOrParts(waitingUntil: Date(timeIntervalSinceNow: 60))
        XCTAssertEqual(second.result, 99)
        XCTAssertEqual(second.parts, [], "8: stored with the result")
    }

    /// A flush drops the parts of the decode in progress, those handed over after it too.
    func testACancelDropsTheDecodesParts() {
        let scheduler = scheduler
        XCTAssertTrue(scheduler.submit { publish in
            publish(1)
            scheduler.cancel()
            publish(2)
            return 3
        })
        XCTAssertTrue(executor.runNext())
        XCTAssertEqual(scheduler.takeResultOrParts(waitingUntil: .distantPast).parts, [])
        XCTAssertNil(scheduler.takeResult())
    }

    /// A part handed over by work that has returned joins no later work's parts.
    func testAPartFromFinishedWorkIsNotTakenAsTheNextWorks() {
        let stash = PublishStash()
        XCTAssertTrue(scheduler.submit { publish in
            stash.keep(publish)
            return 1
        })
        XCTAssertTrue(executor.runNext())
        XCTAssertEqual(scheduler.takeResult(), 1)
        XCTAssertTrue(scheduler.submit { _ in 2 })
        stash.publish(5)
        XCTAssertEqual(scheduler.takeResultOrParts(waitingUntil: .distantPast).parts, [])
    }

    func testAWaitForWorkThatNeverRunsEndsAtTheDeadlineWithNothing() {
        XCTAssertTrue(submit(1))
        XCTAssertNil(scheduler.takeResultOrParts(waitingUntil: Date(timeIntervalSinceNow: 0.01)).result)
        XCTAssertTrue(scheduler.isBusy, "the work is still in flight")
    }

    func testAWaitReturnsAtOnceWithAResultOrWithNothingInFlight() {
        // Deadlines a minute away, none of them reached.
        let deadline = Date(timeIntervalSinceNow: 60)
        XCTAssertNil(scheduler.takeResultOrParts(waitingUntil: deadline).result, "nothing submitted")
        XCTAssertTrue(submit(2))
        executor.runNext()
        XCTAssertEqual(scheduler.takeResultOrParts(waitingUntil: deadline).result, 2)
        // A cancelled decode frees the wait as well.
        XCTAssertTrue(submit(3))
        scheduler.cancel()
        XCTAssertNil(scheduler.takeResultOrParts(waitingUntil: deadline).result)
        XCTAssertLessThan(Date(), deadline)
    }
}

final class DecodeWaitTests: XCTestCase {
    func testAKindNotSeenYetIsWaitedForUpToTheBudget() {
        let wait = DecodeWait(budgetMilliseconds: 16)
        XCTAssertEqual(wait.wait(for: .full, elapsed: 0), 16)
        XCTAssertEqual(DecodeWait(budgetMilliseconds: 0).wait(for: .full, elapsed: 0), 0, "0: never waits")
    }

    /// Before any full scan has finished, one of a 1080p frame is waited for (12.4 ms expected), one
    /// of a 4K frame is not (49.8 ms) until it has run for 34 ms; region jobs are waited for.
    func testBeforeAnyFullScanTheFramesPixelsSayHowLongOneIsExpectedToTake() {
        let hd = DecodeWait(budgetMilliseconds: 16, framePixels: 1920 * 1080)
        XCTAssertEqual(hd.wait(for: .full, elapsed: 0), 16)
        var uhd = DecodeWait(budgetMilliseconds: 16, framePixels: 3840 * 2160)
        XCTAssertEqual(uhd.wait(for: .full, elapsed: 0), 0, "the first frame of a 4K stream")
        XCTAssertEqual(uhd.wait(for: .full, elapsed: 33), 0, "the second, the first scan still running")
        XCTAssertEqual(uhd.wait(for: .full, elapsed: 34), 16)
        XCTAssertEqual(uhd.wait(for: .regions, elapsed: 0), 16)
        uhd.finished(.full, readyAfter: 10)
        XCTAssertEqual(uhd.wait(for: .full, elapsed: 0), 16, "measured: the frame size no longer counts")
    }

    func testAJobWhoseReadingsAreExpectedAfterTheBudgetIsNotWaitedFor() {
        var wait = DecodeWait(budgetMilliseconds: 16)
        wait.finished(.full, readyAfter: 40)
        wait.finished(.regions, readyAfter: 3)
        XCTAssertEqual(wait.wait(for: .full, elapsed: 0), 0, "a 4K full scan")
        XCTAssertEqual(wait.wait(for: .regions, elapsed: 0), 16)
        XCTAssertEqual(wait.wait(for: .full, elapsed: 30), 16, "a job started 30 ms ago should be ready within the budget")
    }

    func testTheExpectedTimeFollowsTheRecentJobs() {
        var wait = DecodeWait(budgetMilliseconds: 16)
        wait.finished(.full, readyAfter: 40)
        for _ in 0..<4 { wait.finished(.full, readyAfter: 10) }
        XCTAssertEqual(wait.wait(for: .full, elapsed: 0), 0, "40 → 19.5 ms after four jobs of 10 ms")
        wait.finished(.full, readyAfter: 10)
        XCTAssertEqual(wait.wait(for: .full, elapsed: 0), 0, "17.1 ms: just past the budget")
        wait.finished(.full, readyAfter: 10)
        XCTAssertEqual(wait.wait(for: .full, elapsed: 0), 16, "15.3 ms")
        for _ in 0..<3 { wait.finished(.full, readyAfter: 17) }
        XCTAssertEqual(wait.wait(for: .full, elapsed: 0), 0, "16.3 ms")
    }

    func testAWaitNeverExceedsHalfAFrame() {
        XCTAssertEqual(DecodeWait(budgetMilliseconds: 16, frameMilliseconds: 1000.0 / 60).wait(for: .full, elapsed: 0), 500.0 / 60, accuracy: 1e-9)
        XCTAssertEqual(DecodeWait(budgetMilliseconds: 16, frameMilliseconds: 40).longestMilliseconds, 16)
        var sixty = DecodeWait(budgetMilliseconds: 16, frameMilliseconds: 1000.0 / 60)
        sixty.finished(.full, readyAfter: 8)
        sixty.finished(.regions, readyAfter: 9)
        XCTAssertEqual(sixty.wait(for: .full, elapsed: 0), 500.0 / 60, accuracy: 1e-9, "8 ms: within 8.3")
        XCTAssertEqual(sixty.wait(for: .regions, elapsed: 0), 0, "9 ms: past 8.3")
        sixty.finished(.full, readyAfter: 16)
        XCTAssertEqual(sixty.wait(for: .full, elapsed: 0), 0, "10 ms expected")
        XCTAssertEqual(sixty.wait(for: .full, elapsed: 2), 500.0 / 60, accuracy: 1e-9, "8 ms left")
    }
}

/// A serial DispatchQueue as executor.
private struct QueueExecutor: DecodeExecutor {
    let queue: DispatchQueue

    func execute(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }
    func shutdown() { queue.sync {} }
}

final class DecodeCadenceTests: XCTestCase {
    /// The decodes asked for on `frames` frames, each one taken by the worker unless `refused`
    /// holds its index.
    private func requests(frames: Int, tracking: Bool, interval: Int, refused: Set<Int> = []) -> [DecodeKind?] {
        var cadence = DecodeCadence()
        return (0..<frames).map { frame in
            let kind = cadence.request(tracking: tracking, interval: interval)
            if let kind, !refused.contains(frame) { cadence.started(kind) }
            cadence.frameEnded()
            return kind
        }
    }

    func testWithoutTracksAFullScanAtOnceThenEveryIntervalFrames() {
        XCTAssertEqual(requests(frames: 7, tracking: false, interval: 3), [.full, nil, nil, .full, nil, nil, .full])
        XCTAssertEqual(requests(frames: 3, tracking: false, interval: 1), [.full, .full, .full])
    }

    /// A full scan carries the tracks' re-decodes: with tracks, regions alone only between full scans.
    func testWithTracksRegionsBetweenFullScansAndAFullScanOnEveryFrameAtInterval1() {
        XCTAssertEqual(requests(frames: 7, tracking: true, interval: 3),
                       [.full, .regions, .regions, .full, .regions, .regions, .full])
        XCTAssertEqual(requests(frames: 4, tracking: true, interval: 1), [.full, .full, .full, .full])
        XCTAssertEqual(requests(frames: 5, tracking: true, interval: 2, refused: [2]), [.full, .regions, .full, .full, .regions])
    }

    func testAFullScanTheWorkerRefusedIsAskedForAgainOnTheNextFrame() {
        XCTAssertEqual(requests(frames: 5, tracking: false, interval: 10, refused: [0, 1]), [.full, .full, .full, nil, nil])
    }

    func testFramesSinceTheLastFullScanCountEndedFrames() {
        var cadence = DecodeCadence()
        cadence.started(.full)
        cadence.frameEnded()
        cadence.frameEnded()
        XCTAssertEqual(cadence.framesSinceFull, 2)
        cadence.started(.regions)
        XCTAssertEqual(cadence.framesSinceFull, 2, "region re-decodes do not count as full scans")
        cadence.started(.full)
        XCTAssertEqual(cadence.framesSinceFull, 0)
    }
}
