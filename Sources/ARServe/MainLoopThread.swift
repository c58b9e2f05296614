import CGStreamer
import Foundation

/// A GLib main loop running on its own thread with its own context: for serving RTSP from a
/// process that has no main loop of its own (tests, benchmarks).
public final class MainLoopThread: @unchecked Sendable {  // Immutable references; GLib's loop calls are thread-safe.
    /// The context to attach sources (e.g. `PipelineServer.start(context:)`) to.
    public let context: OpaquePointer
    private let loop: OpaquePointer
    private let thread: Thread

    public init() {
        context = g_main_context_new()
        let loop = g_main_loop_new(context, 0)!
        self.loop = loop
        let box = LoopBox(loop)
        thread = Thread { g_main_loop_run(box.loop) }
        thread.start()
    }

    /// Quits the loop and waits for its thread.
    public func stop() {
        // A quit before the loop runs would be lost: wait for it to run first.
        while g_main_loop_is_running(loop) == 0 && !thread.isFinished { usleep(1000) }
        g_main_loop_quit(loop)
        while !thread.isFinished { usleep(1000) }
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }
}

private final class LoopBox: @unchecked Sendable {  // One immutable pointer, handed to the loop's thread.
    let loop: OpaquePointer
    init(_ loop: OpaquePointer) { self.loop = loop }
}
