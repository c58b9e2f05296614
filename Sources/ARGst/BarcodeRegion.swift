import ARCore
import CGStreamer

/// One code on a buffer, carried as a standard `GstVideoRegionOfInterestMeta`:
/// `roi_type` = symbology (e.g. `QR-Code`), `id` = track id (-1 before tracking), x/y/w/h = the
/// quad's bounding box, and a params structure named `arbarcode` with the fields
/// `data` (string), `payload` (GBytes, exact bytes), `symbology` (string),
/// `quad` (array of 8 doubles: x0,y0 … x3,y3, pixels, clockwise from the code's top-left),
/// `state` (`detected` | `tracked` | `lost`), `quality` (int) and, once tracked, `track-id` (uint64).
public struct BarcodeRegion: Equatable {
    /// Name of the params structure.
    public static let paramsName = "arbarcode"

    /// Track id; nil for a detection not yet tracked.
    public var trackID: UInt64?
    public var symbology: String
    /// The decoded bytes, exactly as read.
    public var payload: [UInt8]
    /// Corners in frame pixels.
    public var quad: Quad
    public var state: TrackState
    /// Detector quality (zbar: scan lines that agreed); 0 when unknown.
    public var quality: Int

    public init(trackID: UInt64?, symbology: String, payload: [UInt8], quad: Quad, state: TrackState, quality: Int) {
        self.trackID = trackID
        self.symbology = symbology
        self.payload = payload
        self.quad = quad
        self.state = state
        self.quality = quality
    }

    /// The payload as text (UTF-8; invalid sequences replaced).
    public var text: String { String(decoding: payload, as: UTF8.self) }
}

extension Buffer {
    /// Adds `region` as a GstVideoRegionOfInterestMeta. The buffer must be writable (it is in `transform`).
    public func addBarcodeRegion(_ region: BarcodeRegion) {
        let box = region.quad.boundingBox.integral
        let x = UInt32(max(0, box.x)), y = UInt32(max(0, box.y))
        let meta = gst_buffer_add_video_region_of_interest_meta(pointer, region.symbology, x, y,
                                                                UInt32(max(0, box.width)), UInt32(max(0, box.height)))!
        meta.pointee.id = region.trackID.map { Int32(truncatingIfNeeded: $0) } ?? -1
        meta.pointee.parent_id = -1
        let s = OwnedStructure(name: BarcodeRegion.paramsName)
        s.set("data", string: region.text)
        s.set("payload", bytes: region.payload)
        s.set("symbology", string: region.symbology)
        s.set("quad", doubles: region.quad.corners.flatMap { [$0.x, $0.y] })
        s.set("state", string: region.state.rawValue)
        s.set("quality", int: Int32(clamping: region.quality))
        if let id = region.trackID { s.set("track-id", uint64: id) }
        gst_video_region_of_interest_meta_add_param(meta, s.release())
    }

    /// Every ROI meta of this buffer that carries `arbarcode` params, in buffer order.
    public func barcodeRegions() -> [BarcodeRegion] {
        var out: [BarcodeRegion] = []
        forEachRegionMeta { meta in
            if let r = BarcodeRegion(meta: meta) { out.append(r) }
            return false
        }
        return out
    }

    /// Removes every ROI meta that carries `arbarcode` params (other ROI metas stay).
    public func removeBarcodeRegions() {
        forEachRegionMeta { meta in
            gst_video_region_of_interest_meta_get_param(meta, BarcodeRegion.paramsName) != nil
        }
    }

    /// Calls `body` on each ROI meta; removes the meta when `body` returns true.
    private func forEachRegionMeta(_ body: (UnsafeMutablePointer<GstVideoRegionOfInterestMeta>) -> Bool) {
        var state: gpointer? = nil
        let api = gst_video_region_of_interest_meta_api_get_type()
        var doomed: [UnsafeMutablePointer<GstMeta>] = []
        while let meta = gst_buffer_iterate_meta_filtered(pointer, &state, api) {
            let roi = UnsafeMutableRawPointer(meta).assumingMemoryBound(to: GstVideoRegionOfInterestMeta.self)
            if body(roi) { doomed.append(meta) }
        }
        for meta in doomed { _ = gst_buffer_remove_meta(pointer, meta) }
    }
}

extension BarcodeRegion {
    /// Reads a ROI meta written by `addBarcodeRegion` (or by another element with the same params).
    init?(meta: UnsafeMutablePointer<GstVideoRegionOfInterestMeta>) {
        guard let params = gst_video_region_of_interest_meta_get_param(meta, BarcodeRegion.paramsName) else { return nil }
        let s = StructureView(params)
        guard let q = s.doubles("quad"), q.count == 8,
              let quad = Quad([Point(x: q[0], y: q[1]), Point(x: q[2], y: q[3]), Point(x: q[4], y: q[5]), Point(x: q[6], y: q[7])])
        else { return nil }
        let symbology = s.string("symbology") ?? String(cString: g_quark_to_string(meta.pointee.roi_type))
        let payload = s.bytes("payload") ?? Array((s.string("data") ?? "").utf8)
        self.init(trackID: s.uint64("track-id"), symbology: symbology, payload: payload, quad: quad,
                  state: s.string("state").flatMap(TrackState.init(rawValue:)) ?? .detected,
                  quality: Int(s.int("quality") ?? 0))
    }
}
