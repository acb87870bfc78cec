// What one TCP connection may cost the agent, enforced below cpp-httplib.
//
//   ConnectionLimits limits;                       // 16 KiB head, 64 KiB body, 10 s to send them
//   server.new_task_queue = [&] { return new ConnectionPool(limits); };
//   use_exclusive_listener(server);                // no SO_REUSEPORT: a second agent gets "port in use"
//   server.bind_to_port(host, port);
//   raise_listen_backlog(server_listener_fd());    // 1024 instead of cpp-httplib's 5
//
// cpp-httplib 0.11.4 (Debian's shared build) bounds each header line (8 KiB) but not their number, and holds
// one worker per connection for as long as the peer keeps it open. Its hooks run only after the whole head
// has been read, so the bounds live where its bytes come from: every connection runs as a ConnectionPool
// task, which gives the task's thread a byte and time budget, and the library's recv(2) calls are answered
// by this file's recv, which charges that budget. A head over its budget gets 431, a request not complete by
// its deadline 408, a body over its budget 413, each written here and the socket shut for writing, so the
// library's own reply goes nowhere. The pool grows a thread per open connection up to a cap, so a stream
// or an idle peer holds one thread, never the API.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>

namespace layoutscope::agent {

struct ConnectionLimits {
  size_t max_head_bytes = 16 * 1024;                  // request line + headers, with their CRLFs
  size_t max_body_bytes = 64 * 1024;                  // after the head (the policy's Content-Length limit)
  std::chrono::milliseconds request_deadline{10000};  // from the connection's start to its request's end
  int max_connections = 256;                          // threads serving connections at once
  int listen_backlog = 1024;                          // connections the kernel holds before accept
};

// cpp-httplib's TaskQueue with one thread per open connection, grown on demand up to max_connections
// (later connections wait for a thread in FIFO order) and shrunk after 30 s idle.
class ConnectionPool final : public httplib::TaskQueue {
 public:
  explicit ConnectionPool(ConnectionLimits limits);
  ~ConnectionPool() override;
  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

  // Open connections right now, all pools together (tests, /readyz).
  static int open_connections();

 private:
  void worker();
  ConnectionLimits limits_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::condition_variable all_done_;
  std::deque<std::function<void()>> jobs_;
  int threads_ = 0;
  int idle_ = 0;
  bool stopping_ = false;
};

// Socket options for the listener: SO_REUSEADDR (restart within TIME_WAIT) and TCP_NODELAY, without
// cpp-httplib's default SO_REUSEPORT, which lets a second process bind the same port and take half the
// connections. Also remembers the listener's descriptor for raise_listen_backlog.
void use_exclusive_listener(httplib::Server& server);
int server_listener_fd();
// cpp-httplib listens with a backlog of 5; Linux lets listen(2) on a listening socket change it.
bool raise_listen_backlog(int fd, int backlog);

// Accept-Encoding of the request this thread is serving, taken out of the request by the policy (so that
// cpp-httplib never compresses a response itself) and kept here for the static file handler.
void set_request_accept_encoding(std::string value);
const std::string& request_accept_encoding();

}  // namespace layoutscope::agent
