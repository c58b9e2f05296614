import Dispatch
import Foundation

/// Where `ImageLoader` runs its loads: anything that runs a job later, on another thread.
/// Tests pass one they step by hand.
public protocol ImageLoadExecutor: Sendable {
    /// Runs `job` once, later (never inside this call on the caller's thread in production).
    func execute(_ job: @escaping @Sendable () -> Void)
}

/// Runs loads one after another on a background dispatch queue.
public struct BackgroundImageLoads: ImageLoadExecutor {
    private let queue: DispatchQueue
    /// Every job of every such executor not finished yet, for `waitForPendingLoads`.
    private static let inFlight = DispatchGroup()

    public init(label: String = "arbarcode.overlay-images") {
        queue = DispatchQueue(label: label, qos: .utility)
    }

    public func execute(_ job: @escaping @Sendable () -> Void) {
        Self.inFlight.enter()
        queue.async {
            job()
            Self.inFlight.leave()
        }
    }

    /// Blocks until every load started on these executors in this process so far has finished
    /// (tests: the frame after this draws what the frames before asked for).
    public static func waitForPendingLoads() {
        inFlight.wait()
    }
}

/// Overlay images read and decoded away from the streaming thread: the first frame that needs
/// an image starts its load and draws without it; a later frame draws it once it is there.
/// Loaded images are kept (at most `maxImages`, `maxBytes` decoded), failures too, so a file is
/// read once. Safe to use from any thread.
public final class ImageLoader: @unchecked Sendable {  // All mutable state is guarded by `lock`.
    /// What `image(_:)` has for a file.
    public enum Lookup {
        case ready(OverlayImage)
        /// Being loaded: draw nothing for now.
        case pending
        /// Unusable, and why (reported once by the caller).
        case failed(String)
    }

    /// Most images kept.
    public static let maxImages = 256
    /// Most decoded bytes kept (4 per pixel).
    public static let maxBytes = 256 << 20

    private enum Entry {
        case loading
        case loaded(OverlayImage)
        case failed(String)
    }

    private let executor: any ImageLoadExecutor
    private let lock = NSLock()
    private var entries: [ImageFile: Entry] = [:]
    /// Loaded and failed files, oldest first, for eviction.
    private var order: [ImageFile] = []
    /// Decoded bytes and number of the loaded images kept.
    private var bytes = 0
    private var loaded = 0
    /// Bumped by `forgetAll`: loads started before it store nothing.
    private var generation = 0

    public init(executor: any ImageLoadExecutor = BackgroundImageLoads()) {
        self.executor = executor
    }

    /// The image `file` names if it is loaded; otherwise starts loading it (once) and answers `pending`.
    public func image(_ file: ImageFile) -> Lookup {
        let (lookup, startGeneration): (Lookup, Int?) = lock.withLock {
            switch entries[file] {
            case .loaded(let i)?: return (.ready(i), nil)
            case .failed(let why)?: return (.failed(why), nil)
            case .loading?: return (.pending, nil)
            case nil:
                entries[file] = .loading
                return (.pending, generation)
            }
        }
        if let generation = startGeneration {
            executor.execute { [self] in
                store(Result { try OverlayImage(file: file) }, for: file, generation: generation)
            }
        }
        return lookup
    }

    /// The image `file` names, loaded now on the caller's thread if it is not yet (a style's
    /// constant images, when the element starts: a bad file fails the start).
    public func loadNow(_ file: ImageFile) throws -> OverlayImage {
        if case .loaded(let i)? = lock.withLock({ entries[file] }) { return i }
        let image = try OverlayImage(file: file)
        let generation = lock.withLock { self.generation }
        store(.success(image), for: file, generation: generation)
        return image
    }

    /// Forgets every image and failure (files may have changed); loads in flight store nothing.
    public func forgetAll() {
        lock.withLock {
            entries.removeAll()
            order.removeAll()
            bytes = 0
            loaded = 0
            generation += 1
        }
    }

    /// Number of loaded images kept.
    public var loadedCount: Int { lock.withLock { loaded } }

    private func store(_ result: Result<OverlayImage, Error>, for file: ImageFile, generation: Int) {
        lock.withLock {
            guard generation == self.generation else { return }
            let listed: Bool
            switch entries[file] {
            case .loaded?: return
            case .failed?: listed = true
            case .loading?, nil: listed = false
            }
            switch result {
            case .success(let image):
                entries[file] = .loaded(image)
                bytes += image.width * image.height * 4
                loaded += 1
            case .failure(let error):
                entries[file] = .failed("\(error)")
            }
            if !listed { order.append(file) }
            // Oldest first; failures (no pixels) are kept up to four times as many.
            while order.count > 1,
                  bytes > ImageLoader.maxBytes || loaded > ImageLoader.maxImages || order.count > 4 * ImageLoader.maxImages {
                let old = order.removeFirst()
                if case .loaded(let i)? = entries.removeValue(forKey: old) {
                    bytes -= i.width * i.height * 4
                    loaded -= 1
                }
            }
        }
    }
}
