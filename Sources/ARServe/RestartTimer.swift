import Foundation

/// What waits out a failed camera's backoff before it restarts: the server's clock in production,
/// a timer a test steps by hand (so a restart happens exactly when the test says).
public protocol RestartTimer: Sendable {
    /// Calls `restart` once, `seconds` from now, on any thread (the camera moves the restart to
    /// its server's main context itself). `camera` is the camera's name, for timers that care.
    func schedule(camera: String, afterSeconds seconds: Double, _ restart: @escaping @Sendable () -> Void)
}

/// The production timer: a Dispatch queue's clock.
public struct DispatchRestartTimer: RestartTimer {
    public init() {}

    public func schedule(camera: String, afterSeconds seconds: Double, _ restart: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: restart)
    }
}
