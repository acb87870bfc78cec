#include "http/connections.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <system_error>
#include <thread>

namespace layoutscope::agent {
namespace {

using Clock = std::chrono::steady_clock;

// The budget of the connection this thread is serving; inactive on every other thread.
struct Budget {
  bool active = false;
  bool refused = false;
  bool in_head = true;
  int terminator = 0;  // how much of "\r\n\r\n" the head's last bytes matched
  size_t head_left = 0;
  size_t body_left = 0;
  Clock::time_point deadline{};
  std::string accept_encoding;
};
thread_local Budget t_budget;

std::atomic<int> g_open{0};
std::atomic<int> g_listener{-1};

// Answers the peer with a complete response and shuts the socket for writing, so that what cpp-httplib
// writes after the failed read (its own 400) is dropped.
void refuse(int fd, int status, std::string_view reason, std::string_view code, std::string_view message) {
  const std::string body = std::string(R"({"error":{"code":")") + std::string(code) + R"(","message":")" +
                           std::string(message) + "\"}}";
  const std::string text =
      "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\nConnection: close\r\nCache-Control: no-store\r\n"
      "X-Content-Type-Options: nosniff\r\n\r\n" +
      body;
  (void)::send(fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(fd, SHUT_WR);
  t_budget.refused = true;
  // A close with unread bytes sends a reset, which can destroy the answer before the peer reads it; read and
  // drop what is in flight first, as servers do in a lingering close: until the peer is quiet for 50 ms, at
  // most 1 MiB and 300 ms.
  const auto until = Clock::now() + std::chrono::milliseconds(300);
  size_t drained = 0;
  char sink[16384];
  while (drained < (1u << 20) && Clock::now() < until) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) break;
    const ssize_t n = ::recvfrom(fd, sink, sizeof sink, MSG_DONTWAIT, nullptr, nullptr);
    if (n <= 0) break;
    drained += static_cast<size_t>(n);
  }
}

// Charges `n` bytes just read to the budget; false when a limit was crossed (the peer has been answered).
bool charge(int fd, const char* data, size_t n) {
  Budget& b = t_budget;
  size_t i = 0;
  if (b.in_head) {
    static constexpr char kEnd[] = "\r\n\r\n";
    for (; i < n && b.in_head; ++i) {
      if (b.head_left == 0) {
        refuse(fd, 431, "Request Header Fields Too Large", "headers_too_large",
               "the request line and headers exceed the agent's limit");
        return false;
      }
      --b.head_left;
      const char c = data[i];
      b.terminator = c == kEnd[b.terminator] ? b.terminator + 1 : (c == '\r' ? 1 : 0);
      if (b.terminator == 4) b.in_head = false;
    }
  }
  const size_t body = n - i;
  if (body > b.body_left) {
    refuse(fd, 413, "Payload Too Large", "payload_too_large", "the body exceeds the agent's limit");
    return false;
  }
  b.body_left -= body;
  return true;
}

}  // namespace

ConnectionPool::ConnectionPool(ConnectionLimits limits) : limits_(limits) {}

ConnectionPool::~ConnectionPool() { shutdown(); }

int ConnectionPool::open_connections() { return g_open.load(); }

void ConnectionPool::enqueue(std::function<void()> fn) {
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  jobs_.push_back(std::move(fn));
  // idle_ counts threads waiting for work; a job beyond them needs a new thread, if the cap allows.
  if (static_cast<int>(jobs_.size()) > idle_ && threads_ < limits_.max_connections) {
    try {
      std::thread([this] { worker(); }).detach();
      ++threads_;
      return;
    } catch (const std::system_error&) {
      // No thread to be had (a process or memory limit): the job waits for one of the running threads.
    }
  }
  cv_.notify_one();
}

void ConnectionPool::worker() {
  std::unique_lock lock(mutex_);
  for (;;) {
    while (!jobs_.empty()) {
      auto fn = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      t_budget = Budget{};
      t_budget.active = true;
      t_budget.head_left = limits_.max_head_bytes;
      t_budget.body_left = limits_.max_body_bytes;
      t_budget.deadline = Clock::now() + limits_.request_deadline;
      ++g_open;
      fn();
      --g_open;
      t_budget = Budget{};
      lock.lock();
    }
    if (stopping_) break;
    ++idle_;
    const bool woke =
        cv_.wait_for(lock, std::chrono::seconds(30), [&] { return !jobs_.empty() || stopping_; });
    --idle_;
    if (!woke && threads_ > 4) break;  // shrink, keeping a few threads warm
  }
  --threads_;
  all_done_.notify_all();
}

void ConnectionPool::shutdown() {
  std::unique_lock lock(mutex_);
  stopping_ = true;
  cv_.notify_all();
  all_done_.wait(lock, [&] { return threads_ == 0; });
}

void use_exclusive_listener(httplib::Server& server) {
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    g_listener.store(sock);
  });
}

int server_listener_fd() { return g_listener.load(); }

bool raise_listen_backlog(int fd, int backlog) { return fd >= 0 && ::listen(fd, backlog) == 0; }

void set_request_accept_encoding(std::string value) { t_budget.accept_encoding = std::move(value); }

const std::string& request_accept_encoding() { return t_budget.accept_encoding; }

}  // namespace layoutscope::agent

// cpp-httplib's shared library reads every request through recv(2); the executable's definition comes first
// in symbol lookup, so this one sees those reads. Outside a connection task it is plain recv.
extern "C" ssize_t recv(int fd, void* buf, size_t n, int flags) {
  using layoutscope::agent::t_budget;
  const bool counted = t_budget.active && !(flags & MSG_PEEK);
  if (counted) {
    if (t_budget.refused) {
      errno = ECONNRESET;
      return -1;
    }
    if (std::chrono::steady_clock::now() > t_budget.deadline) {
      layoutscope::agent::refuse(fd, 408, "Request Timeout", "request_timeout",
                                 "the request did not arrive in time");
      errno = ECONNRESET;
      return -1;
    }
  }
  const ssize_t got = ::recvfrom(fd, buf, n, flags, nullptr, nullptr);
  if (counted && got > 0 && !layoutscope::agent::charge(fd, static_cast<const char*>(buf), got)) {
    errno = ECONNRESET;
    return -1;
  }
  return got;
}
