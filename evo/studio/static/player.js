/* Play: the server simulates (evo's own kernels) and streams frames over the WebSocket; this module
   sends the design and the commands (play, pause, step, reset, grab, drag, release), keeps every frame
   received (the timeline seeks among them, or has the server compute up to the frame asked) and the
   previous attempt's frames (the ghost). Positions are px, y up. */

import { socketUrl } from "./api.js";

export class Player {
  constructor() {
    this.frame = 0; // the frame shown (frames since the start: record × step)
    this.record = 0; // the index of the record shown
    this.framesPerRecord = 1; // frames per record: 1, or dt when one frame is not a whole number of steps
    this.positions = null; // the shown frame's positions, or null while the design itself is shown
    this.history = []; // history[k]: the positions of record k received for this design (frame 0 included)
    this.ghost = []; // the previous attempt's history (the design before the last edit)
    this.ghostLinks = []; // its springs [{a, b}]
    this.links = [];
    this.grabbedAt = null; // the first record after a grab: from there on the history is not evo simulate's
    this.playing = false;
    this.exploded = false;
    this.explodedFrame = null;
    this.warning = null;
    this.fps = 60;
    this.listeners = [];
    this.queue = [];
    this.open = false;
    this.socket = null;
  }

  onUpdate(listener) { this.listeners.push(listener); }

  notify() { for (const listener of this.listeners) listener(this); }

  connect() {
    this.socket = new WebSocket(socketUrl());
    this.socket.addEventListener("open", () => {
      this.open = true;
      for (const message of this.queue) this.socket.send(message);
      this.queue = [];
    });
    this.socket.addEventListener("message", (event) => this.receive(JSON.parse(event.data)));
    this.socket.addEventListener("close", () => {
      this.open = false;
      this.error = "the connection to the studio server is closed";
      this.notify();
    });
  }

  send(message) {
    const text = JSON.stringify(message);
    if (this.open) this.socket.send(text); else this.queue.push(text);
  }

  receive(message) {
    if (message.type === "frames") {
      const positions = message.positions;
      if (!positions.length) return;
      positions.forEach((p, i) => { this.history[message.first + i] = p; });
      this.record = message.first + positions.length - 1;
      this.frame = this.record * this.framesPerRecord;
      this.positions = positions[positions.length - 1];
      if (this.frame === 0) this.positions = null;
      this.error = null;
    } else if (message.type === "status") {
      this.framesPerRecord = message.step || 1;
      this.playing = Boolean(message.playing);
      this.exploded = Boolean(message.exploded);
      this.explodedFrame = typeof message.exploded_frame === "number" ? message.exploded_frame * this.framesPerRecord : null;
      this.warning = message.stability ? message.stability.warning || null : null;
      if (message.frame === 0) { this.frame = this.record = 0; this.positions = null; }
    } else if (message.type === "error") {
      this.error = message.error;
    }
    this.notify();
  }

  /* The design to play; the simulation goes back to frame 0 (and plays on if it was playing). The frames
     of the design before, if it moved, become the ghost. */
  load(model) {
    const wasPlaying = this.playing;
    if (this.history.length > 1) { this.ghost = this.exactHistory(); this.ghostLinks = this.links; }
    this.links = model.links.map((link) => ({ a: link.a, b: link.b })); // the springs the ghost is drawn with
    this.history = [];
    this.grabbedAt = null;
    this.frame = this.record = 0;
    this.positions = null;
    this.exploded = false;
    this.explodedFrame = null;
    this.error = null;
    if (!model.masses.length) { this.playing = false; this.notify(); return; } // nothing to play yet
    this.send({ type: "load", model: model });
    if (wasPlaying) this.play();
    this.notify();
  }

  /* The records received that are evo simulate's (those before a grab). */
  exactHistory() { return this.grabbedAt === null ? this.history : this.history.slice(0, this.grabbedAt); }

  play() { this.playing = true; this.send({ type: "play", fps: this.fps }); this.notify(); }

  pause() { this.playing = false; this.send({ type: "pause" }); this.notify(); }

  step(frames) { this.send({ type: "step", frames: frames || 1 }); }

  reset() {
    this.history = this.exactHistory().slice(0, 1);
    this.grabbedAt = null;
    this.frame = this.record = 0;
    this.positions = null;
    this.exploded = false;
    this.explodedFrame = null;
    this.send({ type: "reset" });
    this.notify();
  }

  /* Show record `record` now (from the frames received, when there) and have the server go there: back
     to frame 0, then a step of `record` records, all computed by evo's kernels. */
  seek(record) {
    if (this.playing) this.pause();
    const target = Math.max(0, Math.round(record));
    const known = this.exactHistory();
    this.grabbedAt = null;
    this.history = known.slice(0, Math.max(1, Math.min(known.length, target + 1)));
    this.preview(target);
    this.send({ type: "reset" });
    if (target > 0) this.step(target);
    this.notify();
  }

  /* Show record `record` if it was received (the timeline while it is dragged); the server is not told. */
  preview(record) {
    const p = this.history[record];
    if (!p) return false;
    this.record = record;
    this.frame = record * this.framesPerRecord;
    this.positions = record === 0 ? null : p;
    this.notify();
    return true;
  }

  setSpeed(fps) {
    this.fps = fps;
    if (this.playing) this.send({ type: "play", fps: fps });
  }

  /* True once the simulation has left the design (a frame after 0 is shown, or it plays). */
  live() { return this.playing || this.frame > 0; }

  grab(mass, x, y) {
    if (this.grabbedAt === null) this.grabbedAt = this.record + 1;
    this.send({ type: "grab", mass: mass, x: x, y: y });
  }

  drag(x, y) { this.send({ type: "drag", x: x, y: y }); }

  release(vx, vy) { this.send({ type: "release", vx: vx, vy: vy }); }
}
