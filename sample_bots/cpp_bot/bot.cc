// A Trix Arena bot in C++: it plays a seeded random legal action.
//
// The referee starts it with ARENA_BOT_ADDRESS set (`unix:PATH` or `127.0.0.1:PORT`)
// and calls the arena.v1.Bot service of protos/arena/v1/bot.proto, whose C++ code
// `make cpp-bot` generates into build/ with protoc and grpc_cpp_plugin before it
// compiles this file. It chooses exactly as the JavaScript sample (sample_bots/js_bot)
// does, so the two play the same moves from the same requests.
#include <openssl/evp.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "arena/v1/bot.grpc.pb.h"

namespace {

using arena::v1::Ack;
using arena::v1::DecisionReply;
using arena::v1::DecisionRequest;
using arena::v1::HelloReply;
using arena::v1::HelloRequest;
using arena::v1::Notice;
using arena::v1::RefereeMessage;
using grpc::ServerContext;
using grpc::Status;
using grpc::StatusCode;

const char* const kName = "random-cpp";
const char* const kVersion = "1.0";
const uint32_t kProtocolVersion = 1;
const char* const kAddressVariable = "ARENA_BOT_ADDRESS";
const int kMaxMessageBytes = 1 << 20;  // the SDK's limit: a request is a few KB

// mulberry32's first output, in [0, 1): a tiny 32-bit PRNG, the JavaScript sample's.
double Mulberry32(uint32_t seed) {
  uint32_t t = seed + 0x6d2b79f5u;
  t = (t ^ (t >> 15)) * (t | 1u);
  t ^= t + (t ^ (t >> 7)) * (t | 61u);
  return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
}

// The same text as the SDK's Turn.rng hashes, so a decision's randomness depends only
// on the bot seed (GameInfo.seed), the seat and the decision: a replayed game plays the
// same, and the bot keeps no state between calls (the referee may reopen a stream at
// any time).
double Draw(const DecisionRequest& request) {
  const std::string text = request.game().seed() + "/" +
                           std::to_string(request.game().seat()) + "/" +
                           std::to_string(request.decision_id());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr);
  const uint32_t seed = (uint32_t{digest[0]} << 24) | (uint32_t{digest[1]} << 16) |
                        (uint32_t{digest[2]} << 8) | uint32_t{digest[3]};
  return Mulberry32(seed);
}

// One of request.legal, by value. Like the SDK, a failing decision becomes an UNKNOWN
// status that says why, and the error goes to stderr, where the referee's logs keep it.
Status Decide(const DecisionRequest& request, DecisionReply* reply) {
  const int count = request.legal_size();
  if (count == 0) {
    const std::string why =
        "decision " + std::to_string(request.decision_id()) + " has no legal action";
    std::cerr << kName << ": " << why << std::endl;
    return Status(StatusCode::UNKNOWN, "bot error: " + why);
  }
  const int index = static_cast<int>(Draw(request) * count);
  reply->set_decision_id(request.decision_id());
  *reply->mutable_action() = request.legal(index);
  return Status::OK;
}

class RandomBot final : public arena::v1::Bot::Service {
  Status Hello(ServerContext*, const HelloRequest* request, HelloReply* reply) override {
    reply->set_name(kName);
    reply->set_version(kVersion);
    reply->set_protocol_version(kProtocolVersion);
    if (request->protocol_version() != kProtocolVersion) {
      reply->set_error(std::string(kName) + " speaks arena protocol " +
                       std::to_string(kProtocolVersion) + ", the referee " +
                       std::to_string(request->protocol_version()));
    } else if (request->game() != "trix" && request->game() != "trianon") {
      reply->set_error(std::string(kName) + " plays trix, trianon, not " +
                       (request->game().empty() ? "(no game)" : request->game()));
    }
    return Status::OK;
  }

  Status Decide(ServerContext*, const DecisionRequest* request,
                DecisionReply* reply) override {
    return ::Decide(*request, reply);
  }

  // One reply per decision, in order; notices (deal_end, game_end) get none. When the
  // referee ends its side, Read returns false and so does the call.
  Status Play(ServerContext*,
              grpc::ServerReaderWriter<DecisionReply, RefereeMessage>* stream) override {
    RefereeMessage message;
    while (stream->Read(&message)) {
      if (message.body_case() != RefereeMessage::kDecision) continue;
      DecisionReply reply;
      Status status = ::Decide(message.decision(), &reply);
      if (!status.ok()) return status;  // ends the stream with this status
      if (!stream->Write(reply)) break;  // a cancelled stream: the referee has moved on
    }
    return Status::OK;
  }

  // End-of-deal and end-of-game notices in unary mode: a random bot has no use for them.
  Status Notify(ServerContext*, const Notice*, Ack*) override { return Status::OK; }
};

}  // namespace

int main() {
  const char* address = std::getenv(kAddressVariable);
  if (address == nullptr || *address == '\0') {
    std::cerr << kAddressVariable << " is not set: the referee sets it when it starts a bot. "
              << "To run a bot by hand: " << kAddressVariable
              << "=127.0.0.1:50051 sample_bots/cpp_bot/build/cpp_bot, "
              << "then play it as grpc:127.0.0.1:50051" << std::endl;
    return 2;
  }
  const std::string where(address);
  // A socket file left by an earlier run would make the bind fail; the Python server
  // replaces it too. Only a socket is removed, never another kind of file.
  if (where.rfind("unix:", 0) == 0) {
    std::string path = where.substr(5);
    if (path.rfind("///", 0) == 0) path = path.substr(2);
    struct stat info;
    if (lstat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode)) unlink(path.c_str());
  }

  // SIGTERM (the referee's) and SIGINT are taken by sigwait below, not by a handler:
  // blocked here, before gRPC starts its threads, they stay blocked in all of them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  RandomBot bot;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(where, grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.SetMaxSendMessageSize(kMaxMessageBytes);
  builder.RegisterService(&bot);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::cerr << kName << ": cannot listen on " << where << std::endl;
    return 1;
  }
  // The port matters when the address asked for any free one (127.0.0.1:0).
  std::cerr << kName << " " << kVersion << ": listening on " << where;
  if (where.rfind("unix:", 0) != 0) std::cerr << " (port " << port << ")";
  std::cerr << std::endl;

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  // Cancel the calls still open at once, close the socket and exit with status 0.
  server->Shutdown(std::chrono::system_clock::now());
  server->Wait();
  return 0;
}
