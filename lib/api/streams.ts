/**
 * The heartbeat of the dashboard's event streams (/api/watch, /api/decisions/stream): an event
 * every STREAM_HEARTBEAT_MS, so the browser tells a dead connection from a quiet one
 * (lib/queries/stream-silence.ts). Part of the streams' wire format, sent by the server.
 */

/** How often the dashboard's event streams send a heartbeat. */
export const STREAM_HEARTBEAT_MS = 15_000;
/** The heartbeat event's name. */
export const HEARTBEAT_EVENT = "ping";
/** The heartbeat as sent (an event with data: one with none is never dispatched). */
export const HEARTBEAT_TEXT = `event: ${HEARTBEAT_EVENT}\ndata: {}\n\n`;
