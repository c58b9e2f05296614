/// The page arserve serves at `/`: every camera's annotated video, the codes on it listed beside,
/// and clicks on the video sent back to the camera. Plain HTML and JavaScript, no plugin: it reads
/// `/status` for the cameras, then opens `/cameras/NAME/ws` for each.
///
/// The video comes over WebRTC (`?video=webrtc` on the socket: `SignalMessage`s, a `VideoRecord`
/// per frame, shown in a `<video>`) or as JPEG pictures in the socket (`BrowserFrame`, drawn on a
/// `<canvas>`). The page starts with WebRTC when the browser has it and falls back to JPEG for a
/// camera whose WebRTC video shows no frame within `webRTCTimeoutMilliseconds`; the selector at the
/// top (or `?video=jpeg` / `?video=webrtc` in the page's address) chooses one way for all. A click
/// sends a `DisplayedClick`. A panel reconnects when its socket closes.
///
/// Each panel carries what it shows for scripts and tests: `data-camera` (name), `data-video`
/// (`webrtc` or `jpeg`: the way frames come now), `data-codec` (over WebRTC: `H264` or `VP8`, as
/// arserve offered it for the codecs the page listed, `WebRTCCodec`), `data-frames` (frames shown), `data-latency-ms`
/// (how long after reaching arserve the last frame was shown); each list item `data-id` (track
/// id) and `data-payload`.
public enum WebPage {
    public static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>arserve</title>
    <style>
      body { font: 15px system-ui, sans-serif; margin: 16px; background: #f4f4f4; color: #222; }
      h1 { font-size: 20px; margin: 0 0 12px; }
      .camera { display: flex; gap: 16px; align-items: flex-start; background: #fff; padding: 12px;
                border-radius: 6px; margin-bottom: 16px; box-shadow: 0 1px 3px #0002; }
      .video { flex: 0 1 720px; min-width: 200px; }
      .video canvas, .video video { width: 100%; height: auto; display: block; background: #000; cursor: crosshair; }
      .video [hidden] { display: none; }
      header { display: flex; gap: 16px; align-items: baseline; margin: 0 0 12px; }
      header label { font-size: 13px; color: #444; }
      .side { flex: 1 1 220px; min-width: 180px; }
      h2 { font-size: 16px; margin: 0 0 4px; }
      .state { color: #666; font-size: 13px; margin-bottom: 8px; }
      ul.codes { list-style: none; padding: 0; margin: 0; }
      ul.codes li { padding: 4px 6px; border-bottom: 1px solid #eee; font-family: ui-monospace, monospace; word-break: break-all; }
      ul.codes li small { color: #888; font-family: system-ui, sans-serif; }
      .empty { color: #999; font-style: italic; }
    </style>
    </head>
    <body>
    <header><h1>arserve</h1><label>video <select id="transport">
    <option value="auto">WebRTC, JPEG if it fails</option><option value="webrtc">WebRTC only</option><option value="jpeg">JPEG</option>
    </select></label></header>
    <div id="cameras"></div>
    <script>
    "use strict";
    const base = location.pathname.replace(/[^/]*$/, "");
    const asked = new URLSearchParams(location.search).get("video");
    const choice = document.getElementById("transport");
    choice.value = ["auto", "webrtc", "jpeg"].includes(asked) ? asked : "auto";
    choice.onchange = () => { const q = new URLSearchParams(location.search); q.set("video", choice.value); location.search = q.toString(); };
    const webRTCTimeoutMilliseconds = 5000;

    function panel(camera) {
      const section = document.createElement("section");
      section.className = "camera";
      section.dataset.camera = camera.name;
      section.dataset.frames = "0";
      section.innerHTML = '<div class="video"><video muted autoplay playsinline hidden></video><canvas width="640" height="360" hidden></canvas></div>' +
        '<div class="side"><h2></h2><div class="state"></div><ul class="codes"><li class="empty">no codes</li></ul></div>';
      section.querySelector("h2").textContent = camera.name;
      document.getElementById("cameras").appendChild(section);
      return section;
    }

    function showCodes(section, record) {
      const codes = record.objects.filter(o => o.id > 0 && o.state !== "lost").sort((a, b) => a.id - b.id);
      const key = codes.map(o => o.id + ":" + o.data).join("\n");
      if (section.codesKey === key) return;
      section.codesKey = key;
      const list = section.querySelector("ul.codes");
      list.replaceChildren();
      for (const o of codes) {
        const item = document.createElement("li");
        item.dataset.id = String(o.id);
        item.dataset.payload = o.data;
        item.textContent = o.data + " ";
        const small = document.createElement("small");
        small.textContent = o.symbology + " #" + o.id;
        item.appendChild(small);
        list.appendChild(item);
      }
      if (codes.length === 0) list.innerHTML = '<li class="empty">no codes</li>';
    }

    // A frame shown: counted, its codes listed, how late it is said.
    function shown(section, header, width, height, how) {
      showCodes(section, header.record);
      const latency = Date.now() - header.receivedMs;
      section.dataset.frames = String(Number(section.dataset.frames) + 1);
      section.dataset.latencyMs = latency.toFixed(1);
      section.querySelector(".state").textContent = width + "×" + height + " " + how + ", frame " + header.record.frame + ", " +
        Math.max(0, latency).toFixed(0) + " ms behind";
    }

    function socketURL(camera, video) {
      const scheme = location.protocol === "https:" ? "wss:" : "ws:";
      return scheme + "//" + location.host + base + "cameras/" + encodeURIComponent(camera.name) + "/ws?video=" + video;
    }

    // Clicks on `element` go to the camera as DisplayedClick messages.
    function clicks(element, socket) {
      element.onclick = event => {
        const box = element.getBoundingClientRect();
        if (socket.readyState === WebSocket.OPEN) {
          socket.send(JSON.stringify({ x: event.clientX - box.left, y: event.clientY - box.top, width: box.width, height: box.height }));
        }
      };
    }

    function watch(camera, section, video) {
      section.dataset.video = video;
      if (video === "webrtc") watchWebRTC(camera, section); else watchJPEG(camera, section);
    }

    function watchJPEG(camera, section) {
      const canvas = section.querySelector("canvas");
      section.querySelector("video").hidden = true;
      canvas.hidden = false;
      const context = canvas.getContext("2d", { willReadFrequently: true });
      const state = section.querySelector(".state");
      const socket = new WebSocket(socketURL(camera, "jpeg"));
      socket.binaryType = "arraybuffer";
      let pending = null, drawing = false;
      async function draw() {
        drawing = true;
        while (pending) {
          const message = pending;
          pending = null;
          const view = new DataView(message);
          const length = view.getUint32(0);
          const header = JSON.parse(new TextDecoder().decode(new Uint8Array(message, 4, length)));
          const bitmap = await createImageBitmap(new Blob([new Uint8Array(message, 4 + length)], { type: "image/jpeg" }));
          if (canvas.width !== bitmap.width || canvas.height !== bitmap.height) {
            canvas.width = bitmap.width;
            canvas.height = bitmap.height;
          }
          context.drawImage(bitmap, 0, 0);
          bitmap.close();
          shown(section, header, canvas.width, canvas.height, "JPEG");
        }
        drawing = false;
      }
      socket.onmessage = event => {
        pending = event.data;  // a frame not drawn yet is replaced by a newer one
        if (!drawing) draw().catch(error => { drawing = false; state.textContent = String(error); });
      };
      socket.onclose = () => {
        state.textContent = "disconnected; reconnecting…";
        canvas.onclick = null;
        setTimeout(() => watch(camera, section, "jpeg"), 1000);
      };
      clicks(canvas, socket);
    }

    function watchWebRTC(camera, section) {
      const video = section.querySelector("video");
      section.querySelector("canvas").hidden = true;
      video.hidden = false;
      const state = section.querySelector(".state");
      state.textContent = "connecting (WebRTC)…";
      // The codecs this browser decodes, for arserve to choose one it can encode (`WebRTCCodec`).
      const codecs = RTCRtpReceiver.getCapabilities ? [...new Set(RTCRtpReceiver.getCapabilities("video").codecs
        .map(c => c.mimeType.split("/")[1]))].join(",") : "";
      const socket = new WebSocket(socketURL(camera, "webrtc") + (codecs ? "&codecs=" + encodeURIComponent(codecs) : ""));
      const peer = new RTCPeerConnection({ iceServers: [] });
      const records = new Map();  // RTP timestamp → the frame's codes, the last 64
      let newest = null, remoteSet = false, early = [], ended = false, frames = 0;
      peer.ontrack = event => {
        video.srcObject = event.streams[0] || new MediaStream([event.track]);
        video.play().catch(() => {});
      };
      peer.onicecandidate = event => {
        if (event.candidate && event.candidate.candidate && socket.readyState === WebSocket.OPEN) {
          socket.send(JSON.stringify({ candidate: event.candidate.candidate, sdpMLineIndex: event.candidate.sdpMLineIndex || 0 }));
        }
      };
      socket.onmessage = async event => {
        const message = JSON.parse(event.data);
        if (message.offer) {
          const codec = /a=rtpmap:\d+ ([A-Za-z0-9]+)\//.exec(message.offer);
          section.dataset.codec = codec ? codec[1] : "";
          await peer.setRemoteDescription({ type: "offer", sdp: message.offer });
          remoteSet = true;
          for (const c of early) await peer.addIceCandidate(c).catch(() => {});
          early = [];
          const answer = await peer.createAnswer();
          await peer.setLocalDescription(answer);
          socket.send(JSON.stringify({ answer: answer.sdp }));
        } else if (typeof message.candidate === "string") {
          const candidate = { candidate: message.candidate, sdpMLineIndex: message.sdpMLineIndex };
          if (remoteSet) await peer.addIceCandidate(candidate).catch(() => {}); else early.push(candidate);
        } else if (message.record) {
          records.set(message.rtp, message);
          if (records.size > 64) records.delete(records.keys().next().value);
          newest = message;
        }
      };
      // Each frame the video shows: the codes of that very frame (by its RTP timestamp), or the newest.
      function onFrame(now, metadata) {
        if (ended) return;
        const header = (metadata && records.get(metadata.rtpTimestamp)) || newest;
        frames += 1;
        if (header) shown(section, header, video.videoWidth, video.videoHeight, "WebRTC");
        video.requestVideoFrameCallback(onFrame);
      }
      if ("requestVideoFrameCallback" in video) video.requestVideoFrameCallback(onFrame);
      else video.ontimeupdate = () => onFrame(0, null);
      function end(next, why) {
        if (ended) return;
        ended = true;
        video.onclick = null;
        socket.onclose = null;
        socket.close();
        peer.close();
        video.srcObject = null;
        state.textContent = why;
        setTimeout(() => watch(camera, section, next), next === "jpeg" ? 0 : 1000);
      }
      socket.onclose = () => end("webrtc", "disconnected; reconnecting…");
      if (choice.value === "auto") {
        setTimeout(() => { if (frames === 0) end("jpeg", "WebRTC did not connect: JPEG instead"); }, webRTCTimeoutMilliseconds);
      }
      clicks(video, socket);
    }

    fetch(base + "status").then(response => response.json()).then(status => {
      const video = choice.value === "jpeg" || !("RTCPeerConnection" in window) ? "jpeg" : "webrtc";
      for (const camera of status.cameras) {
        const section = panel(camera);
        if ("browserViewers" in camera) watch(camera, section, video);
        else section.querySelector(".state").textContent = "this camera's pipeline ends in its own RTP payloader: watch it over RTSP";
      }
    });
    </script>
    </body>
    </html>
    """#
}
