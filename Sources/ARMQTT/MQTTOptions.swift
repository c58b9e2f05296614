/// How an `MQTTPublisher` reaches its broker and where it keeps messages meanwhile.
public struct MQTTOptions: Sendable {
    /// Broker host name or address.
    public var host: String
    /// Broker TCP port.
    public var port: UInt16
    /// Topic every message is published to.
    public var topic: String
    /// 0 (at most once: a message written to the socket counts as delivered), 1 (at least once:
    /// delivered when the broker acknowledges it) or 2 (exactly once: delivered when the broker
    /// completes the exchange).
    public var qos: Int32 = 1
    /// Topic of the retained `online`/`offline` status (`offline` is also the last will).
    public var statusTopic: String
    /// MQTT client id; the same one is used on every connection.
    public var clientID: String
    /// User name and password; nil: none sent.
    public var username: String?
    public var password: String?
    /// PEM file of the certificate authorities to trust; when set, the connection uses TLS.
    public var caFile: String?
    /// Directory of the on-disk queue (created when missing).
    public var queueDirectory: String
    /// Most bytes of messages waiting in the on-disk queue.
    public var queueMaxBytes: Int
    /// Seconds between MQTT keepalive pings when idle.
    public var keepaliveSeconds: Int32 = 30
    /// Most messages sent and not yet acknowledged. MQTT 3.1.1 cannot ask the broker how many it
    /// takes: mosquitto takes 20 QoS 2 messages at a time (`max_inflight_messages`) and completes
    /// any more without forwarding them, so the default is 20.
    public var window = 20
    /// Longest wait between two connection attempts, seconds (attempts start 50 ms apart and double).
    public var maxReconnectDelaySeconds = 2.0

    /// Options for `topic` on `host:port`, with the status on `TOPIC/status` and the given queue.
    public init(host: String, port: UInt16, topic: String, clientID: String, queueDirectory: String, queueMaxBytes: Int) {
        self.host = host
        self.port = port
        self.topic = topic
        self.statusTopic = topic + "/status"
        self.clientID = clientID
        self.queueDirectory = queueDirectory
        self.queueMaxBytes = queueMaxBytes
    }

    /// `mqtt://HOST:PORT/TOPIC`, for messages.
    public var name: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "mqtt://\(h):\(port)/\(topic)"
    }
}
