import Foundation

/// Property values of one element instance, behind a lock. Setters run on the application's
/// thread; the streaming thread takes a copy (`snapshot`) once per frame.
public final class SettingsStore<Settings>: @unchecked Sendable {  // `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value: Settings

    public init(_ initial: Settings) {
        value = initial
    }

    /// A copy of the current values.
    public var snapshot: Settings {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    /// Changes the values under the lock.
    public func update<R>(_ body: (inout Settings) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
