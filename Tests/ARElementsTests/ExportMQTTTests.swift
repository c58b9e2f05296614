import ARCore
import ARGst
import CGStreamer
import CGstCheck
import Foundation
import XCTest

/// arexport to a real `mosquitto` broker on loopback, read by a real `mosquitto_sub`.
final class ExportMQTTTests: XCTestCase {
    private let quad = Quad(Rect(x: 10, y: 10, width: 40, height: 40))

    /// The `arexport-stats` messages' counts: lines, written, dropped, queued.
    private func stats(_ bus: BusLog) -> [[UInt64]] {
        bus.elementMessages("arexport-stats").map { s in
            ["lines", "lines-written", "lines-dropped", "lines-queued"].map { StructureView(s.borrowed).uint64($0) ?? .max }
        }
    }

    /// Messages waiting in the on-disk queue `directory`.
    private func queued(_ directory: String) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".msg") }.count
    }

    /// The frame records received on `topic`.
    private func records(_ subscriber: TestSubscriber, _ topic: String) throws -> [FrameRecord] {
        try subscriber.messages(topic).map { try FrameRecord(jsonLine: $0) }
    }

    private func payload(_ record: FrameRecord) -> String? {
        record.objects.first.map { String(decoding: $0.payload, as: UTF8.self) }
    }

    private func harness(_ properties: String) -> OverlayHarness {
        OverlayHarness("arexport \(properties)", width: 64, height: 48)
    }

    /// Runs 300 frames through arexport with `qos`, the broker stopped right after a burst (frames
    /// 50-149) and started again after 100 more; returns the frame numbers the subscriber received.
    private func framesAcrossABrokerRestart(qos: Int) throws -> [UInt64] {
        let broker = try TestBroker()
        let subscriber = try TestSubscriber(broker: broker, topics: ["cam"], qos: qos)
        let queue = temporaryPath("queue-\(UUID().uuidString)")
        var h: OverlayHarness? = harness("location=mqtt://127.0.0.1:\(broker.port)/cam qos=\(qos) queue-dir=\(queue)")
        let bus = BusLog(h!.element("arexport"))
        var pushed = 0
        func push(_ count: Int) {
            for _ in 0..<count {
                XCTAssertNotNil(h!.push(h!.black, codes: [code("frame \(pushed)", quad: quad)], seconds: Double(pushed) * 0.04))
                pushed += 1
            }
        }
        push(50)
        XCTAssertTrue(waitUntil { subscriber.messages("cam").count >= 20 })
        // Stopped mid-stream, right after a burst: some of it delivered, some on its way, some not sent yet.
        push(100)
        broker.stop()
        let deliveredBefore = subscriber.messages("cam").count
        push(100)
        // None of these can leave while the broker is away: all wait on the disk.
        let onDisk = queued(queue)
        XCTAssertGreaterThanOrEqual(onDisk, 100)
        try broker.start()
        push(50)
        XCTAssertTrue(gst_harness_push_event(h!.h, gst_event_new_eos()) != 0)
        XCTAssertEqual(stats(bus).last, [300, 300, 0, 0], "lines, delivered, dropped, queued at EOS")
        XCTAssertTrue(bus.warnings.contains { $0.contains("mqtt://127.0.0.1:\(broker.port)/cam is unavailable") }, "\(bus.warnings)")
        h = nil
        XCTAssertEqual(queued(queue), 0)

        XCTAssertTrue(waitUntil { (try? self.records(subscriber, "cam"))?.last?.frame == 299 }, broker.log)
        let received = try records(subscriber, "cam")
        for record in received { XCTAssertEqual(payload(record), "frame \(record.frame)") }
        print("MQTT outage, QoS \(qos): 300 frames sent, \(deliveredBefore) delivered before the broker stopped, \(onDisk) on disk "
              + "during the outage, \(received.count) delivered in all")
        return received.map(\.frame)
    }

    func testWithQoS2EveryFrameArrivesExactlyOnceAndInOrderAcrossABrokerRestart() throws {
        let frames = try framesAcrossABrokerRestart(qos: 2)
        XCTAssertEqual(frames, (0..<300).map { UInt64($0) },
                       "every frame once, in order; repeated: \(Dictionary(grouping: frames, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()), "
                       + "missing: \(Set(0..<300).subtracting(frames.map { Int($0) }).sorted())")
    }

    func testWithQoS1EveryFrameArrivesInOrderAcrossABrokerRestart() throws {
        let frames = try framesAcrossABrokerRestart(qos: 1)
        var seen = Set<UInt64>()
        // At least once: a message the restart caught in flight may come again.
        XCTAssertEqual(frames.filter { seen.insert($0).inserted }, (0..<300).map { UInt64($0) }, "every frame, in order of first arrival")
    }

    func testTheStatusIsRetainedOnlineThenOfflineAndTheLastWillSaysOfflineWhenTheProcessIsKilled() throws {
        let broker = try TestBroker()
        var h: OverlayHarness? = harness("location=mqtt://127.0.0.1:\(broker.port)/cam queue-dir=\(temporaryPath("q-\(UUID().uuidString)"))")
        XCTAssertNotNil(h!.push(h!.black, codes: [], seconds: 0))
        XCTAssertTrue(waitUntil { broker.retained("cam/status") == "online" })
        h = nil
        XCTAssertEqual(broker.retained("cam/status"), "offline", "published when stopping")

        // A process killed outright cannot say goodbye: the broker publishes the last will.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        p.arguments = ["-q", "arcodesrc", "is-live=true", "codes=1", "!", "arexport",
                       "location=mqtt://127.0.0.1:\(broker.port)/cam2", "status-topic=site/cam2/status",
                       "queue-dir=\(temporaryPath("q-\(UUID().uuidString)"))", "!", "fakesink"]
        p.environment = pluginEnvironment(try releasePluginDirectory())
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        XCTAssertTrue(waitUntil { broker.retained("site/cam2/status") == "online" })
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        XCTAssertTrue(waitUntil { broker.retained("site/cam2/status") == "offline" }, "the last will")
    }

    func testPastTheQueueLimitNewMessagesAreDroppedAndCountedAndTheRestIsSentAfterARestart() throws {
        let port = freeLoopbackPort()  // no broker there yet
        let queue = temporaryPath("queue-\(UUID().uuidString)")
        let properties = "location=mqtt://127.0.0.1:\(port)/cam queue-max-bytes=2048 queue-dir=\(queue)"
        var kept = 0
        do {
            let h = harness(properties)
            let bus = BusLog(h.element("arexport"))
            for i in 0..<20 { XCTAssertNotNil(h.push(h.black, codes: [code("queued \(i)", quad: quad)], seconds: Double(i) * 0.04)) }
            kept = queued(queue)
            XCTAssertGreaterThan(kept, 5)
            XCTAssertLessThan(kept, 20)
            XCTAssertTrue(bus.warnings.contains { $0.contains("arexport dropped 1 line(s) so far: the on-disk queue \(queue) is full") },
                          "\(bus.warnings)")
            XCTAssertEqual(stats(bus).first, [UInt64(kept) + 1, 0, 1, UInt64(kept)], "lines, delivered, dropped, queued at the first drop")
        }
        // Stopped with the broker still away: the messages stay for the next start.
        XCTAssertEqual(queued(queue), kept)

        let broker = try TestBroker(port: port)
        let subscriber = try TestSubscriber(broker: broker, topics: ["cam"])
        // Started again on the same queue, with room for one more.
        let h = harness("location=mqtt://127.0.0.1:\(port)/cam queue-dir=\(queue)")
        let bus = BusLog(h.element("arexport"))
        XCTAssertNotNil(h.push(h.black, codes: [code("after restart", quad: quad)], seconds: 0))
        XCTAssertTrue(gst_harness_push_event(h.h, gst_event_new_eos()) != 0)
        XCTAssertEqual(stats(bus).last, [1, UInt64(kept) + 1, 0, 0], "lines, delivered (the earlier ones too), dropped, queued")
        XCTAssertTrue(waitUntil { subscriber.messages("cam").count >= kept + 1 })
        XCTAssertEqual(try records(subscriber, "cam").map { payload($0) }, (0..<kept).map { "queued \($0)" } + ["after restart"])
    }

    func testMessagesUnacknowledgedWhenTheElementStopsAreSentOnceByTheNextStart() throws {
        let broker = try TestBroker()
        let subscriber = try TestSubscriber(broker: broker, topics: ["cam"], qos: 2)
        let queue = temporaryPath("queue-\(UUID().uuidString)")
        let properties = "location=mqtt://127.0.0.1:\(broker.port)/cam qos=2 queue-dir=\(queue)"
        do {
            let h = harness(properties)
            XCTAssertNotNil(h.push(h.black, codes: [code("before", quad: quad)], seconds: 0))
            XCTAssertTrue(waitUntil { self.queued(queue) == 0 }, "delivered while the broker answers")
            // A frozen broker takes the messages into its socket and acknowledges nothing.
            broker.pause()
            for i in 0..<30 { XCTAssertNotNil(h.push(h.black, codes: [code("unacknowledged \(i)", quad: quad)], seconds: Double(i + 1) * 0.04)) }
        }
        broker.resume()
        XCTAssertEqual(queued(queue), 30, "sent or not, none was acknowledged: all stay on the disk")
        let h = harness(properties)
        let bus = BusLog(h.element("arexport"))
        XCTAssertNotNil(h.push(h.black, codes: [code("after", quad: quad)], seconds: 0))
        XCTAssertTrue(gst_harness_push_event(h.h, gst_event_new_eos()) != 0)
        XCTAssertEqual(stats(bus).last, [1, 31, 0, 0], "lines, delivered (the earlier ones too), dropped, queued")
        XCTAssertTrue(waitUntil { subscriber.messages("cam").count >= 32 })
        XCTAssertEqual(try records(subscriber, "cam").map { payload($0) }, ["before"] + (0..<30).map { "unacknowledged \($0)" } + ["after"])
    }

    func testEventsModeSendsOnlyTracksAddedAndRemovedAndQoS0Delivers() throws {
        let broker = try TestBroker()
        let subscriber = try TestSubscriber(broker: broker, topics: ["cam"])
        let h = harness("location=mqtt://127.0.0.1:\(broker.port)/cam records=events qos=0 queue-dir=\(temporaryPath("q-\(UUID().uuidString)"))")
        let a = code("A", id: 1, quad: quad), b = code("B", id: 2, quad: quad)
        for (i, codes) in [[a], [a, b], [b], [b], []].enumerated() {
            XCTAssertNotNil(h.push(h.black, codes: codes, seconds: Double(i) * 0.04))
        }
        XCTAssertTrue(gst_harness_push_event(h.h, gst_event_new_eos()) != 0)
        XCTAssertTrue(waitUntil { subscriber.messages("cam").count >= 4 })
        let lines = subscriber.messages("cam")
        let events = lines.map { line -> String in
            let event = line.contains("\"event\":\"added\"") ? "added" : line.contains("\"event\":\"removed\"") ? "removed" : "?"
            let record = try? FrameRecord(jsonLine: line)
            return "\(record?.frame ?? 99) \(event) \(record.flatMap { payload($0) } ?? "")"
        }
        XCTAssertEqual(events, ["0 added A", "1 added B", "2 removed A", "4 removed B"])
    }

    func testTLSWithCredentialsFromTheEnvironmentDeliversAndAWrongPasswordIsRefusedAndQueued() throws {
        let credentials = try TestCredentials(user: "camera", password: "s3cret")
        let broker = try TestBroker(listenerOptions: credentials.listenerOptions)
        let subscriber = try TestSubscriber(broker: broker, topics: ["cam"], host: "localhost",
                                            options: ["--cafile", credentials.ca, "-u", "camera", "-P", "s3cret"])
        setenv("AREXPORT_MQTT_USERNAME", "camera", 1)
        setenv("AREXPORT_MQTT_PASSWORD", "s3cret", 1)
        defer {
            unsetenv("AREXPORT_MQTT_USERNAME")
            unsetenv("AREXPORT_MQTT_PASSWORD")
        }
        let location = "location=mqtt://localhost:\(broker.port)/cam tls-ca-file=\(credentials.ca)"
        do {
            let h = harness("\(location) queue-dir=\(temporaryPath("q-\(UUID().uuidString)"))")
            let bus = BusLog(h.element("arexport"))
            for i in 0..<3 { XCTAssertNotNil(h.push(h.black, codes: [code("tls \(i)", quad: quad)], seconds: Double(i) * 0.04)) }
            XCTAssertTrue(gst_harness_push_event(h.h, gst_event_new_eos()) != 0)
            XCTAssertEqual(stats(bus).last, [3, 3, 0, 0])
        }
        XCTAssertTrue(waitUntil { subscriber.messages("cam").count >= 3 }, broker.log)
        XCTAssertEqual(try records(subscriber, "cam").map { payload($0) }, ["tls 0", "tls 1", "tls 2"])

        // A property wins over the environment: a wrong password is refused, the message waits.
        let queue = temporaryPath("q-\(UUID().uuidString)")
        let h = harness("\(location) password=wrong queue-dir=\(queue)")
        let bus = BusLog(h.element("arexport"))
        XCTAssertNotNil(h.push(h.black, codes: [code("refused", quad: quad)], seconds: 0))
        XCTAssertTrue(waitUntil { bus.warnings.contains { $0.contains("the broker refused the connection") } })
        XCTAssertTrue(bus.warnings.contains { $0.contains("not authorised") }, "\(bus.warnings)")
        XCTAssertEqual(queued(queue), 1)
    }

    func testBadSettingsFailAtStartNamingTheProblem() throws {
        let source = "videotestsrc num-buffers=1 ! video/x-raw,width=64,height=48"
        let file = temporaryPath("not-a-dir-\(UUID().uuidString)")
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data()))
        for (properties, expected) in [("location=mqtt://127.0.0.1:1883", "needs a topic"),
                                       ("location=mqtt://127.0.0.1:99999/t", "bad port '99999'"),
                                       ("location=mqtt://127.0.0.1/a/# queue-dir=\(file)", "cannot hold '#'"),
                                       ("location=mqtt://127.0.0.1/t status-topic=a/+/status", "'a/+/status' is not a topic to publish to"),
                                       ("location=mqtt://127.0.0.1/t tls-ca-file=/nonexistent/ca.pem", "Could not read the TLS CA file '/nonexistent/ca.pem'"),
                                       ("location=mqtt://127.0.0.1/t queue-dir=\(file)/q", "Could not create the queue directory '\(file)/q'")] {
            let error = runPipeline("\(source) ! arexport \(properties) ! fakesink")
            XCTAssertTrue(error?.message.contains(expected) ?? false, "\(properties): \(String(describing: error))")
        }
    }

    /// Measures how many messages per second reach a local broker at QoS 1 (printed, not asserted).
    func testABurstOfThousandsOfMessagesIsDeliveredInOrderAtQoS1() throws {
        let broker = try TestBroker()
        let subscriber = try TestSubscriber(broker: broker, topics: ["cam"])
        let h = harness("location=mqtt://127.0.0.1:\(broker.port)/cam qos=1 queue-dir=\(temporaryPath("q-\(UUID().uuidString)"))")
        let bus = BusLog(h.element("arexport"))
        let count = 3000
        let frame = h.black
        let started = Date()
        for i in 0..<count { XCTAssertNotNil(h.push(frame, codes: [code("burst \(i)", quad: quad)], seconds: Double(i) * 0.04)) }
        let queuedSeconds = Date().timeIntervalSince(started)
        XCTAssertTrue(gst_harness_push_event(h.h, gst_event_new_eos()) != 0)
        let deliveredSeconds = Date().timeIntervalSince(started)
        XCTAssertEqual(stats(bus).last, [UInt64(count), UInt64(count), 0, 0])
        XCTAssertTrue(waitUntil { subscriber.messages("cam").count >= count })
        XCTAssertEqual(try records(subscriber, "cam").map(\.frame), (0..<count).map { UInt64($0) })
        print(String(format: "MQTT QoS 1: %d messages queued in %.2f s, delivered (acknowledged) in %.2f s: %.0f messages/s",
                     count, queuedSeconds, deliveredSeconds, Double(count) / deliveredSeconds))
    }
}
