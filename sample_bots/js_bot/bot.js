// A Trix Arena bot in JavaScript: it plays a uniformly random legal action.
//
// The referee starts it with ARENA_BOT_ADDRESS set (`unix:PATH` or `127.0.0.1:PORT`)
// and calls the arena.v1.Bot service of protos/arena/v1/bot.proto, which this file
// loads at run time, so the bot always speaks the contract in the repository.
// It behaves like the Python SDK (arena/sdk/) and sample_bots/random_bot.py.
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const NAME = "random-js";
const VERSION = "1.0";
const PROTOCOL_VERSION = 1;
const GAMES = ["trix", "trianon"];
const ADDRESS_VARIABLE = "ARENA_BOT_ADDRESS";
const MAX_MESSAGE_BYTES = 1 << 20; // the SDK's limit: a request is a few KB

// The referee says where the protocol's .proto is ($ARENA_PROTO): a bot shipped to a
// cluster worker runs from a copy of this folder alone. Started by hand from this
// folder, it finds the project's.
const PROTO_PATH = process.env.ARENA_PROTO ||
  path.join(__dirname, "..", "..", "protos", "arena", "v1", "bot.proto");
// keepCase: field names as in the .proto (decision_id, not decisionId);
// longs: Number: the uint64 ids are small counters, and Numbers print like Python ints;
// oneofs: true adds `body`, the name of the RefereeMessage field that is set.
const definition = protoLoader.loadSync(PROTO_PATH, {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
});
const arena = grpc.loadPackageDefinition(definition).arena.v1;

// mulberry32: a tiny 32-bit PRNG; good enough to pick among a handful of actions.
function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The same text as the SDK's Turn.rng hashes, so a decision's randomness depends only
// on the bot seed (GameInfo.seed), the seat and the decision: a replayed game plays the
// same, and the bot keeps no state between calls (the referee may reopen a stream at
// any time).
function rngFor(request) {
  const game = request.game || {};
  const text = `${game.seed}/${game.seat}/${request.decision_id}`;
  const digest = crypto.createHash("sha256").update(text).digest();
  return mulberry32(digest.readUInt32BE(0));
}

function decide(request) {
  const legal = request.legal || [];
  if (legal.length === 0) {
    throw new Error(`decision ${request.decision_id} has no legal action`);
  }
  const choice = legal[Math.floor(rngFor(request)() * legal.length)];
  // The legal Action itself, by value: the referee compares it with its own list.
  return { decision_id: request.decision_id, action: choice };
}

// Like the SDK: a failing decision becomes an UNKNOWN status that says why, and the
// error is printed on stderr, where the referee's logs keep it.
function botError(err) {
  console.error(err);
  return { code: grpc.status.UNKNOWN, details: `bot error: ${err.name}: ${err.message}` };
}

const handlers = {
  Hello(call, callback) {
    const request = call.request;
    let error = "";
    if (request.protocol_version !== PROTOCOL_VERSION) {
      error = `${NAME} speaks arena protocol ${PROTOCOL_VERSION}, the referee ${request.protocol_version}`;
    } else if (!GAMES.includes(request.game)) {
      error = `${NAME} plays ${GAMES.join(", ")}, not ${request.game || "(no game)"}`;
    }
    callback(null, { name: NAME, version: VERSION, protocol_version: PROTOCOL_VERSION, error });
  },

  Decide(call, callback) {
    try {
      callback(null, decide(call.request));
    } catch (err) {
      callback(botError(err));
    }
  },

  // Messages are handled one at a time as they arrive, so replies go out in order.
  // Notices (deal_end, game_end) get no reply. When the referee ends its side, so do we.
  Play(call) {
    call.on("data", (message) => {
      if (message.body !== "decision") return;
      try {
        call.write(decide(message.decision));
      } catch (err) {
        call.emit("error", botError(err)); // ends the stream with this status
      }
    });
    call.on("end", () => call.end());
    call.on("error", () => {}); // a cancelled stream: the referee has moved on
  },

  // End-of-deal and end-of-game notices in unary mode: a random bot has no use for them.
  Notify(call, callback) {
    callback(null, {});
  },
};

function main() {
  const address = process.env[ADDRESS_VARIABLE];
  if (!address) {
    console.error(
      `${ADDRESS_VARIABLE} is not set: the referee sets it when it starts a bot. To run ` +
        `a bot by hand: ${ADDRESS_VARIABLE}=127.0.0.1:50051 node sample_bots/js_bot/bot.js, ` +
        "then play it as grpc:127.0.0.1:50051",
    );
    process.exit(2);
  }
  // A socket file left by an earlier run would make the bind fail; the Python server
  // (gRPC core) replaces it too. Only a socket is removed, never another kind of file.
  if (address.startsWith("unix:")) {
    const socketPath = address.slice("unix:".length).replace(/^\/\/(?=\/)/, "");
    try {
      if (fs.lstatSync(socketPath).isSocket()) fs.unlinkSync(socketPath);
    } catch {
      // no such file: nothing to clean up
    }
  }

  const server = new grpc.Server({
    "grpc.max_receive_message_length": MAX_MESSAGE_BYTES,
    "grpc.max_send_message_length": MAX_MESSAGE_BYTES,
  });
  server.addService(arena.Bot.service, handlers);
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) {
      console.error(`${NAME}: cannot listen on ${address}: ${err.message}`);
      process.exit(1);
    }
    // The port matters when the address asked for any free one (127.0.0.1:0).
    const where = address.startsWith("unix:") ? address : `${address} (port ${port})`;
    console.error(`${NAME} ${VERSION}: listening on ${where}`);
  });

  // The referee stops a bot with SIGTERM: drop the connections at once and let the
  // event loop empty, so the process exits with status 0.
  for (const signal of ["SIGTERM", "SIGINT"]) {
    process.on(signal, () => server.forceShutdown());
  }
}

if (require.main === module) {
  main();
}

module.exports = { decide, rngFor, mulberry32 };
