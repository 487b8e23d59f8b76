/* The studio server's JSON API and WebSocket (docs/studio.md, "For scripts"). The page was served with
   ?token=T and a cookie; the token also travels in the X-Evo-Token header. Nothing here leaves the
   server the page came from. */

import { parseJson } from "./json.js";

const TOKEN = new URLSearchParams(location.search).get("token") || "";

/* An API error: the server's one-line message, its HTTP status, and the whole answer. */
export class ApiError extends Error {
  constructor(message, status, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

async function call(method, path, body) {
  const options = { method: method, headers: { "X-Evo-Token": TOKEN }, credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let answer = null;
  try { answer = parseJson(await response.text()); } catch (e) { answer = null; }
  if (!response.ok) {
    const message = answer && answer.error ? answer.error : `${method} ${path}: HTTP ${response.status}`;
    throw new ApiError(message, response.status, answer || {});
  }
  return answer;
}

export const get = (path) => call("GET", path);
export const post = (path, body) => call("POST", path, body || {});

/* The WebSocket URL of this server (same origin; the token as a query parameter too). */
export function socketUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws?token=${encodeURIComponent(TOKEN)}`;
}
