import ARCore
import ARDetect
import ARGst
import ARVision
import Foundation

/// zbar decoding for the tracker: the whole frame, or only around the places where tracks are
/// expected (cheap re-decodes between full scans). Not thread-safe: one per thread.
final class TrackDecoder {
    private let stage: CodeDetectorStage

    /// Throws a settings error naming the property when `symbologies` is invalid.
    init(symbologies: String?, options: DetectorOptions = DetectorOptions()) throws {
        stage = try CodeDetectorStage(symbologies: symbologies, options: options)
    }

    /// Rebuilds the detector when the symbologies changed; applies `options`.
    func reconfigure(symbologies: String?, options: DetectorOptions) throws {
        try stage.reconfigure(symbologies: symbologies, options: options)
    }

    /// Forgets every frame seen (`CodeDetectorStage.reset`).
    func reset() {
        stage.reset()
    }

    /// Scans a small frame and forgets it (`CodeDetectorStage.warmUp`).
    func warmUp() {
        stage.warmUp()
    }

    /// Every code in `plane` but those of `skipping` (tracked codes, re-decoded in their regions),
    /// the verified regions no pass read, and the codes of `tracks` read where they are now, at
    /// once (as `regions(plane, tracks)`): the located regions and the tracks' decoded in the same
    /// batches on the detector's threads. `pyramid`: `plane`'s pyramid when the caller has one (its
    /// coarser levels serve the localizer). `early`: given codes read before the scan ends, on a
    /// decoding thread, outlines fitted alike, then told when the first decodes have ended
    /// (`BarcodeDetector.scan`); the result holds them too.
    func full(_ plane: LumaPlane, skipping: [KnownCode], andRegions tracks: [Track], pyramid: LumaPyramid? = nil,
              early: EarlyHandOver? = nil) -> (result: DetectorResult, tracked: [Detection]) {
        let halvings = pyramid.map { Array($0.levels.dropFirst()) } ?? []
        let outlines = outlines
        var (result, tracked) = plane.withImage {
            stage.scan($0, skipping: skipping, expecting: tracks.map(\.quad), kinds: Self.kinds(tracks), halvings: halvings,
                       early: early?.mapping { outlines.refined($0, width: plane.width, height: plane.height, plane: plane) })
        }
        // Both fitted in one batch.
        let both = refined(result.codes + tracked, in: plane)
        result.codes = Array(both[..<result.codes.count])
        return (result, Array(both[result.codes.count...]))
    }

    /// The kind of region each of `tracks` is read in.
    private static func kinds(_ tracks: [Track]) -> [LocatedRegion.Kind] {
        tracks.map { LocatedRegion.Kind(symbology: $0.symbology) }
    }

    /// The codes of `tracks` read where the tracks are now (frame pixels), corners in frame pixels:
    /// each region measured and decoded as a located one of the track's kind (1D strips along the
    /// bars, QR at about 3 px per module), on the detector's threads.
    func regions(_ plane: LumaPlane, _ tracks: [Track]) -> [Detection] {
        refined(plane.withImage { stage.detect($0, in: tracks.map(\.quad), kinds: Self.kinds(tracks)) }, in: plane)
    }

    /// Calls `body(i)` for every `i` in `0..<count` on the detector's threads and returns when all
    /// calls have returned; each call must write only its own result.
    func forEach(_ count: Int, _ body: @escaping (Int) -> Void) {
        stage.forEach(count, body)
    }

    private func refined(_ detections: [Detection], in plane: LumaPlane) -> [Detection] {
        outlines.refined(detections, width: plane.width, height: plane.height, plane: plane, forEach: stage.forEach)
    }

    private let outlines = CodeOutlines()
}

/// 1D outlines fitted edge by edge (`LinearOutlineRefiner`): the detector's are rectangles as
/// tall as the bars it could follow, which misses codes seen in perspective and fine bars. A 1D
/// code without a fit, and any code touching the frame border (clipped), is marked as a partial
/// outline (`outlineComplete` false): it confirms its track without shrinking it. Used alike by
/// `arbarcodetrack` and `arbarcodedetect` (so `arbarcodedetect ! artrack` tracks the same outlines).
struct CodeOutlines {
    private let refiner = LinearOutlineRefiner()

    /// `detections` in a `width` × `height` frame, 1D outlines fitted on `plane` (asked for only
    /// when a 1D code is there: a caller may have to copy the frame to make it). `forEach(n, body)`
    /// calls `body` for every index in `0..<n` (each fit on its own, e.g. on the decoding threads).
    func refined(_ detections: [Detection], width: Int, height: Int, plane: @autoclosure () -> LumaPlane,
                 forEach: (Int, @escaping (Int) -> Void) -> Void = { n, body in for i in 0..<n { body(i) } }) -> [Detection] {
        guard detections.contains(where: { !Detection.isSelfChecking(symbology: $0.symbology) }) else {
            return Self.markedAtBorder(detections, width: width, height: height)
        }
        return plane().withImage { refined(detections, in: $0, forEach: forEach) }
    }

    /// `refined(_:width:height:plane:forEach:)` on a frame's luma as it is (no copy), for a caller
    /// that holds it mapped until this returns.
    func refined(_ detections: [Detection], in luma: LumaImage,
                 forEach: (Int, @escaping (Int) -> Void) -> Void = { n, body in for i in 0..<n { body(i) } }) -> [Detection] {
        var out = detections
        let linear = detections.indices.filter { !Detection.isSelfChecking(symbology: detections[$0].symbology) }
        if !linear.isEmpty {
            let refiner = refiner
            var fits = [Quad?](repeating: nil, count: linear.count)
            fits.withUnsafeMutableBufferPointer { fit in
                let fit = fit  // each call writes its own index only
                forEach(linear.count) { k in fit[k] = refiner.refine(detections[linear[k]].quad, in: luma) }
            }
            for (k, j) in linear.enumerated() {
                if let quad = fits[k] { out[j].quad = quad } else { out[j].outlineComplete = false }
            }
        }
        return Self.markedAtBorder(out, width: luma.width, height: luma.height)
    }

    /// `detections` with those touching the frame's border marked as partial and at the edge.
    private static func markedAtBorder(_ detections: [Detection], width: Int, height: Int) -> [Detection] {
        var out = detections
        let frame = Rect(x: 0, y: 0, width: Double(width), height: Double(height))
        for j in out.indices where out[j].quad.touchesEdge(of: frame) {
            out[j].outlineComplete = false
            out[j].atFrameEdge = true
        }
        return out
    }
}
