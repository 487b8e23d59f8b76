/* Play: the server simulates (evo's own kernels) and streams frames over the WebSocket; this module
   sends the design and the commands (play, pause, step, reset, grab, drag, release) and keeps the
   newest frame received, which is the frame the page shows. Positions are px, y up. */

import { socketUrl } from "./api.js";

export class Player {
  constructor() {
    this.frame = 0; // the frame shown (frames since the start: record × step)
    this.record = 0; // the index of the record shown
    this.framesPerRecord = 1; // frames per record: 1, or dt when one frame is not a whole number of steps
    this.positions = null; // the shown frame's positions, or null while the design itself is shown
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

  /* The design to play; the simulation goes back to frame 0 (and plays on if it was playing). */
  load(model) {
    const wasPlaying = this.playing;
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

  play() { this.playing = true; this.send({ type: "play", fps: this.fps }); this.notify(); }

  pause() { this.playing = false; this.send({ type: "pause" }); this.notify(); }

  step(frames) { this.send({ type: "step", frames: frames || 1 }); }

  reset() {
    this.frame = this.record = 0;
    this.positions = null;
    this.exploded = false;
    this.explodedFrame = null;
    this.send({ type: "reset" });
    this.notify();
  }

  setSpeed(fps) {
    this.fps = fps;
    if (this.playing) this.send({ type: "play", fps: fps });
  }

  /* True once the simulation has left the design (a frame after 0 is shown, or it plays). */
  live() { return this.playing || this.frame > 0; }

  grab(mass, x, y) { this.send({ type: "grab", mass: mass, x: x, y: y }); }

  drag(x, y) { this.send({ type: "drag", x: x, y: y }); }

  release(vx, vy) { this.send({ type: "release", vx: vx, vy: vy }); }
}
