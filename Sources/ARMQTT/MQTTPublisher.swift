import ARLines
import CMosquitto
import Foundation

/// Publishes messages to one MQTT topic without losing them across broker outages, and without
/// ever making the caller wait for the network.
///
/// `publish` only appends the message to an on-disk queue (`DiskQueue`) and wakes the network
/// thread. That thread owns the libmosquitto client: it connects (again and again, 50 ms to
/// `maxReconnectDelaySeconds` apart, while the broker is away), publishes the queued messages in
/// order, at most `window` unacknowledged at a time, and removes each from the disk once it is
/// delivered (QoS 1: acknowledged with PUBACK; QoS 2: completed with PUBCOMP; QoS 0: written to
/// the socket).
///
/// One libmosquitto client serves every connection of the publisher: a persistent session
/// (clean session off) with a fixed client id, so that the broker keeps the state of our QoS 2
/// exchanges across a reconnection and a restart (with its persistence on). Messages
/// unacknowledged when a connection ends stay in that client and are sent again, with their
/// message ids, right after the next CONNACK (libmosquitto's retry); the disk queue is read on
/// from where it was. QoS 0 messages not written when a connection ends are published again from
/// the disk. The publisher's first connection is preceded by a clean one that clears what an
/// earlier process left in the broker's session (its message ids would collide with ours); a
/// message that process left unacknowledged is still on the disk and is published again.
///
/// What a subscriber sees across a broker restart: every message, in order. With QoS 2 each one
/// exactly once: the broker forwards a message when it gets PUBREL, and it recognises a PUBLISH
/// sent again by its message id. With QoS 1, a message can come twice: the broker forwards on
/// PUBLISH, so a message it forwarded and whose PUBACK (ours, or a subscriber's to it) was lost in
/// the restart is sent again (MQTT's at-least-once contract).
///
/// Status: the retained message `online` is published on `statusTopic` after each connection, and
/// `offline` when the publisher closes; `offline` is also the last will, which the broker
/// publishes when the connection is lost (process killed, network gone).
public final class MQTTPublisher: @unchecked Sendable {  // Mutable state is guarded by `condition`; libmosquitto objects are used by the network thread only.
    /// A change of the connection, reported on the network thread.
    public enum Event: Sendable, Equatable {
        /// Connected and accepted by the broker.
        case connected
        /// The broker could not be reached, refused the connection, or the connection was lost:
        /// messages wait on the disk until it comes back. Carries the reason.
        case unavailable(String)
    }

    /// What became of the messages so far.
    public struct Stats: Equatable, Sendable {
        /// Messages delivered (QoS 0: written to the socket; 1: acknowledged; 2: completed).
        public var delivered: UInt64
        /// Messages not queued because the on-disk queue was full, or lost from it (file deleted).
        public var dropped: UInt64
        /// Messages waiting on the disk, those sent and not yet acknowledged included.
        public var queued: Int
        /// Bytes of the waiting messages.
        public var queuedBytes: Int
        /// Whether a broker connection is up.
        public var connected: Bool
    }

    public let options: MQTTOptions
    private let condition = NSCondition()
    private let queue: DiskQueue
    private var delivered: UInt64 = 0
    private var connected = false
    private var closing = false
    private var closed = false
    /// When `close` gives up on the goodbye (`offline` and DISCONNECT) and drops the connection.
    private var closeDeadline = Date.distantFuture
    /// A pipe whose read end wakes the network thread (new message, closing).
    private let wakeFDs: (read: Int32, write: Int32)
    private let exited = DispatchSemaphore(value: 0)
    private let onEvent: @Sendable (Event) -> Void

    private static let libraryReady: Bool = mosquitto_lib_init() == Int32(MOSQ_ERR_SUCCESS.rawValue)

    /// Opens the on-disk queue (resuming what a previous publisher left in it) and starts the
    /// network thread. `onEvent` hears of connections and outages, on that thread.
    /// Throws a message naming the problem when the options cannot work (queue directory, CA file).
    public init(_ options: MQTTOptions, onEvent: @escaping @Sendable (Event) -> Void = { _ in }) throws {
        guard Self.libraryReady else { throw ExportDestinationError("Could not initialise libmosquitto") }
        guard (0...2).contains(options.qos) else {
            throw ExportDestinationError("MQTT QoS \(options.qos) does not exist (use 0, 1 or 2)")
        }
        for topic in [options.topic, options.statusTopic] where mosquitto_pub_topic_check(topic) != Int32(MOSQ_ERR_SUCCESS.rawValue) {
            throw ExportDestinationError("'\(topic)' is not a topic to publish to (empty, or holding '+' or '#')")
        }
        if let ca = options.caFile, access(ca, R_OK) != 0 {
            throw ExportDestinationError("Could not read the TLS CA file '\(ca)': \(String(cString: strerror(errno)))")
        }
        self.options = options
        self.onEvent = onEvent
        queue = try DiskQueue(directory: options.queueDirectory, maxBytes: options.queueMaxBytes)
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw ExportDestinationError("Could not create a pipe: \(String(cString: strerror(errno)))") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wakeFDs = (fds[0], fds[1])
        let thread = Thread { [self] in run() }
        thread.name = "arexport-mqtt"
        thread.start()
    }

    deinit {
        Glibc.close(wakeFDs.read)
        Glibc.close(wakeFDs.write)
    }

    /// `mqtt://HOST:PORT/TOPIC`.
    public var name: String { options.name }

    public var stats: Stats {
        condition.lock()
        defer { condition.unlock() }
        return Stats(delivered: delivered, dropped: queue.refusedMessages + queue.unreadableMessages, queued: queue.count,
                     queuedBytes: queue.queuedBytes, connected: connected)
    }

    /// Queues `message` (one MQTT payload) on the disk; returns false when the queue is full (the
    /// message is dropped and counted). Never waits for the network.
    /// Throws when the queue directory cannot be written.
    public func publish(_ message: [UInt8]) throws -> Bool {
        condition.lock()
        let sequence: UInt64?
        do {
            sequence = try queue.append(message)
        } catch {
            condition.unlock()
            throw error
        }
        condition.unlock()
        if sequence != nil { wake() }
        return sequence != nil
    }

    /// Waits until every queued message is delivered, for at most `timeoutSeconds`; returns how
    /// many still wait (they stay on the disk).
    public func drain(timeoutSeconds: Double) -> Int {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        while queue.count > 0, !closed {
            if !condition.wait(until: deadline) { break }
        }
        return queue.count
    }

    /// Stops: publishes the retained `offline` status when connected (waiting up to
    /// `timeoutSeconds` for the broker to take it), disconnects and waits (as long again) for the
    /// network thread. Messages not delivered stay on the disk for the next publisher; returns how
    /// many.
    @discardableResult
    public func close(timeoutSeconds: Double) -> Int {
        condition.lock()
        if !closing {
            closing = true
            closeDeadline = Date(timeIntervalSinceNow: timeoutSeconds)
        }
        // Cuts a wait between connection attempts short.
        condition.broadcast()
        condition.unlock()
        wake()
        // A connection attempt blocks the thread; past the timeout the thread finishes on its own.
        _ = exited.wait(timeout: .now() + timeoutSeconds * 2)
        condition.lock()
        defer { condition.unlock() }
        return queue.count
    }

    private func wake() {
        var one: UInt8 = 1
        _ = write(wakeFDs.write, &one, 1)
    }

    private var isClosing: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closing
    }

    // MARK: Network thread

    /// The last event reported (network thread only): an outage is reported once, not per attempt.
    private var lastEvent: Event?

    private func run() {
        let client = Client(self)
        var delay = 0.05
        while !isClosing {
            let outcome = client.connectAndServe()
            setConnected(false)
            guard let failure = outcome.failure else { break }
            if outcome.wasAccepted { delay = 0.05 }
            report(.unavailable(failure))
            // Waits before the next attempt; only closing cuts the wait short.
            condition.lock()
            let until = Date(timeIntervalSinceNow: delay)
            while !closing, condition.wait(until: until) {}
            condition.unlock()
            delay = min(delay * 2, options.maxReconnectDelaySeconds)
        }
        client.destroy()
        condition.lock()
        queue.close()
        closed = true
        condition.broadcast()
        condition.unlock()
        exited.signal()
    }

    private func report(_ event: Event) {
        if event != lastEvent { onEvent(event) }
        lastEvent = event
    }

    fileprivate func setConnected(_ up: Bool) {
        condition.lock()
        connected = up
        condition.unlock()
        if up { report(.connected) }
    }

    /// The next message after `sequence` to publish.
    fileprivate func next(after sequence: UInt64?) -> (sequence: UInt64, bytes: [UInt8])? {
        condition.lock()
        defer { condition.unlock() }
        return queue.message(after: sequence)
    }

    /// Message `sequence` was delivered: off the disk.
    fileprivate func delivered(_ sequence: UInt64) {
        condition.lock()
        if queue.remove(sequence) { delivered += 1 }
        condition.broadcast()
        condition.unlock()
    }

    fileprivate func closingState() -> (closing: Bool, deadline: Date) {
        condition.lock()
        defer { condition.unlock() }
        return (closing, closeDeadline)
    }

    fileprivate func drainWake() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while read(wakeFDs.read, &bytes, bytes.count) == bytes.count {}
    }

    fileprivate var wakeDescriptor: Int32 { wakeFDs.read }
}

/// The publisher's libmosquitto client, driven by the network thread's poll loop for one
/// connection after another. Its callbacks run inside `mosquitto_loop_read`/`_write`, on that thread.
private final class Client {
    unowned let publisher: MQTTPublisher
    private var mosq: OpaquePointer?
    /// Why the client cannot be used (set up failed); reported on every attempt.
    private var setupFailure: String?
    /// Message ids handed to libmosquitto and not yet delivered, with their queue sequence numbers.
    private var inflight: [Int32: UInt64] = [:]
    /// The last queue sequence number handed to libmosquitto.
    private var lastSequence: UInt64?
    /// Whether the broker may still hold a session of an earlier process with this client id.
    private var staleSession = true
    /// This connection: accepted by the broker (CONNACK 0), and why it ended.
    private var accepted = false
    private var failure: String?
    private var statusMid: Int32 = -1
    private var statusDelivered = false
    /// The message being handed to libmosquitto, and whether it was delivered meanwhile (QoS 0 is
    /// written, and its callback run, inside `mosquitto_publish`).
    private var publishing: UInt64?
    private var publishingDelivered = false

    init(_ publisher: MQTTPublisher) {
        self.publisher = publisher
        setupFailure = setUp()
    }

    func destroy() {
        if let mosq { mosquitto_destroy(mosq) }
        mosq = nil
    }

    private static func ok(_ rc: Int32) -> Bool { rc == Int32(MOSQ_ERR_SUCCESS.rawValue) }

    private static func reason(_ rc: Int32) -> String {
        if rc == Int32(MOSQ_ERR_ERRNO.rawValue) { return String(cString: strerror(errno)) }
        return String(cString: mosquitto_strerror(rc))
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> Client {
        Unmanaged<Client>.fromOpaque(context!).takeUnretainedValue()
    }

    /// Creates the client: callbacks, last will, credentials, TLS. Returns what failed.
    private func setUp() -> String? {
        let o = publisher.options
        guard let m = mosquitto_new(o.clientID, false, Unmanaged.passUnretained(self).toOpaque()) else {
            return "could not create an MQTT client"
        }
        mosq = m
        mosquitto_connect_callback_set(m) { _, context, rc in Client.from(context).connected(rc) }
        mosquitto_disconnect_callback_set(m) { _, context, rc in Client.from(context).disconnected(rc) }
        mosquitto_publish_callback_set(m) { _, context, mid in Client.from(context).published(mid) }
        let offline = Array("offline".utf8)
        var rc = mosquitto_will_set(m, o.statusTopic, Int32(offline.count), offline, 1, true)
        guard Self.ok(rc) else { return "could not set the last will on '\(o.statusTopic)': \(Self.reason(rc))" }
        if o.username != nil || o.password != nil {
            rc = mosquitto_username_pw_set(m, o.username, o.password)
            guard Self.ok(rc) else { return "could not set the user name: \(Self.reason(rc))" }
        }
        if let ca = o.caFile {
            rc = mosquitto_tls_set(m, ca, nil, nil, nil, nil)
            guard Self.ok(rc) else { return "could not use the TLS CA file '\(ca)': \(Self.reason(rc))" }
        }
        mosquitto_max_inflight_messages_set(m, UInt32(o.window))
        return nil
    }

    /// Connects and serves until the connection ends; `failure` is nil when it ended by closing.
    func connectAndServe() -> (failure: String?, wasAccepted: Bool) {
        if let setupFailure { return (setupFailure, false) }
        accepted = false
        failure = nil
        if publisher.options.qos == 0 {
            // libmosquitto drops QoS 0 packets not written: they are published again from the disk.
            inflight.removeAll()
            lastSequence = nil
        }
        let o = publisher.options
        if staleSession {
            if let problem = clearSession() { return (problem, false) }
            staleSession = false
        }
        let rc = mosquitto_connect(mosq, o.host, Int32(o.port), o.keepaliveSeconds)
        guard Self.ok(rc) else { return ("could not connect to \(o.host):\(o.port): \(Self.reason(rc))", false) }
        serve()
        return (failure, accepted)
    }

    /// Connects once with a clean session under our client id and disconnects: the broker drops
    /// whatever session an earlier process left. Returns what failed.
    private func clearSession() -> String? {
        let o = publisher.options
        final class Answer { var code: Int32 = -1 }
        let answer = Answer()
        guard let m = mosquitto_new(o.clientID, true, Unmanaged.passUnretained(answer).toOpaque()) else {
            return "could not create an MQTT client"
        }
        defer { mosquitto_destroy(m) }
        mosquitto_connect_callback_set(m) { _, context, rc in
            Unmanaged<Answer>.fromOpaque(context!).takeUnretainedValue().code = rc
        }
        if o.username != nil || o.password != nil { mosquitto_username_pw_set(m, o.username, o.password) }
        if let ca = o.caFile { mosquitto_tls_set(m, ca, nil, nil, nil, nil) }
        let rc = mosquitto_connect(m, o.host, Int32(o.port), o.keepaliveSeconds)
        guard Self.ok(rc) else { return "could not connect to \(o.host):\(o.port): \(Self.reason(rc))" }
        let deadline = Date(timeIntervalSinceNow: 5)
        while answer.code < 0, Date() < deadline, !publisher.closingState().closing {
            let lrc = mosquitto_loop(m, 100, 1)
            // A refusal ends the connection after its CONNACK has been read.
            guard Self.ok(lrc) || answer.code >= 0 else { return "the connection was lost (\(Self.reason(lrc)))" }
        }
        guard answer.code == 0 else {
            return answer.code < 0 ? "the broker did not answer" :
                "the broker refused the connection: \(String(cString: mosquitto_connack_string(answer.code)))"
        }
        mosquitto_disconnect(m)
        _ = mosquitto_loop(m, 100, 1)
        return nil
    }

    private func connected(_ rc: Int32) {
        guard rc == 0 else {
            failure = "the broker refused the connection: \(String(cString: mosquitto_connack_string(rc)))"
            return
        }
        accepted = true
        let online = Array("online".utf8)
        var mid: Int32 = 0
        let prc = mosquitto_publish(mosq, &mid, publisher.options.statusTopic, Int32(online.count), online, 1, true)
        if !Self.ok(prc) { failure = "could not publish the status: \(Self.reason(prc))" }
        publisher.setConnected(true)
    }

    private func disconnected(_ rc: Int32) {
        if failure == nil { failure = rc == 0 ? "disconnected" : "the connection was lost" }
    }

    private func published(_ mid: Int32) {
        if mid == statusMid {
            statusDelivered = true
        } else if let sequence = inflight.removeValue(forKey: mid) {
            publisher.delivered(sequence)
        } else if let sequence = publishing {
            publishingDelivered = true
            publisher.delivered(sequence)
        }
    }

    /// Hands queued messages to libmosquitto, in order, up to the window.
    private func pump() {
        let o = publisher.options
        while failure == nil, inflight.count < o.window, let (sequence, bytes) = publisher.next(after: lastSequence) {
            var mid: Int32 = 0
            publishing = sequence
            publishingDelivered = false
            let rc = mosquitto_publish(mosq, &mid, o.topic, Int32(bytes.count), bytes, o.qos, false)
            publishing = nil
            guard Self.ok(rc) else {
                failure = "could not publish: \(Self.reason(rc))"
                return
            }
            lastSequence = sequence
            if !publishingDelivered { inflight[mid] = sequence }
        }
    }

    /// The poll loop: until the connection fails, or closing ends with `offline` and DISCONNECT.
    private func serve() {
        var goodbye = false
        while failure == nil {
            let (closing, deadline) = publisher.closingState()
            if closing {
                if !accepted || Date() >= deadline { return }
                if !goodbye {
                    goodbye = true
                    statusDelivered = false
                    let offline = Array("offline".utf8)
                    let rc = mosquitto_publish(mosq, &statusMid, publisher.options.statusTopic, Int32(offline.count), offline, 1, true)
                    if !Self.ok(rc) { return }
                }
                if statusDelivered {
                    mosquitto_disconnect(mosq)
                    _ = mosquitto_loop_write(mosq, 1)
                    return
                }
            } else if accepted {
                pump()
            }
            let socket = mosquitto_socket(mosq)
            guard socket >= 0 else {
                if failure == nil { failure = "the connection closed" }
                return
            }
            var fds = [pollfd(fd: socket, events: Int16(POLLIN) | (mosquitto_want_write(mosq) ? Int16(POLLOUT) : 0), revents: 0),
                       pollfd(fd: publisher.wakeDescriptor, events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, 2, closing ? 50 : 1000)
            if n < 0, errno != EINTR {
                failure = "poll failed: \(String(cString: strerror(errno)))"
                return
            }
            if fds[1].revents != 0 { publisher.drainWake() }
            if fds[0].revents & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                let rc = mosquitto_loop_read(mosq, 1)
                if !Self.ok(rc), failure == nil { failure = "the connection was lost (\(Self.reason(rc)))" }
            }
            if failure == nil, mosquitto_want_write(mosq) {
                let rc = mosquitto_loop_write(mosq, 1)
                if !Self.ok(rc), failure == nil { failure = "the connection was lost (\(Self.reason(rc)))" }
            }
            if failure == nil {
                let rc = mosquitto_loop_misc(mosq)
                if !Self.ok(rc), failure == nil { failure = "the connection was lost (\(Self.reason(rc)))" }
            }
        }
    }
}
