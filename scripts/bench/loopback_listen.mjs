/**
 * Node preload (`node --import <this file's URL> …`) for bench peers whose start script has no
 * host option (Portkey's `start-server.js` calls `serve({ fetch, port })`, which binds every
 * interface): every TCP listen by port goes to 127.0.0.1 instead, so the peer is never reachable
 * from another machine during the bench.
 */
import net from "node:net";

const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function (...args) {
  const [first, ...rest] = args;
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, callback]): the host, given or not, is replaced.
    if (rest.length > 0 && (typeof rest[0] === "string" || rest[0] === undefined)) rest.shift();
    return listen.call(this, first, "127.0.0.1", ...rest);
  }
  if (first !== null && typeof first === "object" && first.path === undefined && !first._handle) {
    // listen(options[, callback]) with a port (not a Unix socket or an inherited handle).
    return listen.call(this, { ...first, host: "127.0.0.1" }, ...rest);
  }
  return listen.apply(this, args);
};
