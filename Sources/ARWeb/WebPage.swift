/// The page arserve serves at `/`: every camera's annotated video, the codes on it listed beside,
/// and clicks on the video sent back to the camera. Plain HTML and JavaScript, no plugin: it reads
/// `/status` for the cameras, then opens `/cameras/NAME/ws` for each (see `BrowserFrame` for what
/// arrives, `DisplayedClick` for what a click sends). A camera's panel shows frames as they come,
/// the newest only when the browser falls behind, and reconnects when the socket closes.
///
/// Each panel carries what it shows for scripts and tests: `data-camera` (name), `data-frames`
/// (frames drawn), `data-latency-ms` (how long after reaching arserve the last frame was drawn);
/// each list item `data-id` (track id) and `data-payload`.
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
      .video canvas { width: 100%; height: auto; display: block; background: #000; cursor: crosshair; }
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
    <h1>arserve</h1>
    <div id="cameras"></div>
    <script>
    "use strict";
    const base = location.pathname.replace(/[^/]*$/, "");

    function panel(camera) {
      const section = document.createElement("section");
      section.className = "camera";
      section.dataset.camera = camera.name;
      section.dataset.frames = "0";
      section.innerHTML = '<div class="video"><canvas width="640" height="360"></canvas></div>' +
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

    function watch(camera, section) {
      const canvas = section.querySelector("canvas");
      const context = canvas.getContext("2d", { willReadFrequently: true });
      const state = section.querySelector(".state");
      const scheme = location.protocol === "https:" ? "wss:" : "ws:";
      const socket = new WebSocket(scheme + "//" + location.host + base + "cameras/" + encodeURIComponent(camera.name) + "/ws");
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
          showCodes(section, header.record);
          const latency = Date.now() - header.receivedMs, width = canvas.width, height = canvas.height;
          section.dataset.frames = String(Number(section.dataset.frames) + 1);
          section.dataset.latencyMs = latency.toFixed(1);
          state.textContent = width + "×" + height + ", frame " + header.record.frame + ", " + Math.max(0, latency).toFixed(0) + " ms behind";
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
        setTimeout(() => watch(camera, section), 1000);
      };
      canvas.onclick = event => {
        const box = canvas.getBoundingClientRect();
        if (socket.readyState === WebSocket.OPEN) {
          socket.send(JSON.stringify({ x: event.clientX - box.left, y: event.clientY - box.top, width: box.width, height: box.height }));
        }
      };
    }

    fetch(base + "status").then(response => response.json()).then(status => {
      for (const camera of status.cameras) {
        const section = panel(camera);
        if ("browserViewers" in camera) watch(camera, section);
        else section.querySelector(".state").textContent = "this camera's pipeline ends in its own RTP payloader: watch it over RTSP";
      }
    });
    </script>
    </body>
    </html>
    """#
}
