#include "render/student/process.h"

#include <uv.h>

#include <csignal>
#include <filesystem>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace cr::student {

struct ChildProcess::Impl {
    uv_loop_t loop{};
    uv_process_t proc{};
    uv_pipe_t to_child{}, from_child{}, out_pipe{}, err_pipe{};
    uv_timer_t timer{};
    bool protocol = false, capture = false;
    bool exited = false, timer_fired = false, from_eof = false;
    int out_open = 0;  ///< capture pipes not yet at EOF
    int64_t exit_status = -1;
    int signal = 0;
    int log_fd = -1;
    std::string output, inbox;
    bool write_done = false;
    int write_status = 0;
    char buffer[65536];
};

namespace {

using Impl = ChildProcess::Impl;

Impl* impl_of(uv_handle_t* h) { return static_cast<Impl*>(h->data); }

void on_alloc(uv_handle_t* h, size_t, uv_buf_t* buf) {
    Impl* d = impl_of(h);
    *buf = uv_buf_init(d->buffer, sizeof d->buffer);
}

void on_protocol_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
    Impl* d = impl_of(reinterpret_cast<uv_handle_t*>(s));
    if (n > 0) d->inbox.append(buf->base, static_cast<size_t>(n));
    if (n < 0) {
        d->from_eof = true;
        uv_read_stop(s);
    }
}

void on_output_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
    Impl* d = impl_of(reinterpret_cast<uv_handle_t*>(s));
    if (n > 0) d->output.append(buf->base, static_cast<size_t>(n));
    if (n < 0) {
        --d->out_open;
        uv_read_stop(s);
    }
}

void on_exit(uv_process_t* p, int64_t status, int sig) {
    Impl* d = impl_of(reinterpret_cast<uv_handle_t*>(p));
    d->exited = true;
    d->exit_status = status;
    d->signal = sig;
}

void on_timer(uv_timer_t* t) { impl_of(reinterpret_cast<uv_handle_t*>(t))->timer_fired = true; }

void on_write(uv_write_t* req, int status) {
    Impl* d = static_cast<Impl*>(req->data);
    d->write_done = true;
    d->write_status = status;
}

/// Runs the loop until done() holds, the child is gone (gone()), or the time is up.
template <class Done, class Gone>
WaitResult run_until(Impl& d, double timeout_s, Done done, Gone gone) {
    d.timer_fired = false;
    uv_timer_start(&d.timer, on_timer, static_cast<uint64_t>(timeout_s * 1000.0 + 0.5), 0);
    while (!done() && !gone() && !d.timer_fired) uv_run(&d.loop, UV_RUN_ONCE);
    uv_timer_stop(&d.timer);
    if (done()) return WaitResult::Ok;
    return gone() ? WaitResult::Exited : WaitResult::Timeout;
}

/// A child whose reader is gone makes a write raise SIGPIPE; the harness
/// wants EPIPE instead (reported as "the worker exited").
void ignore_sigpipe_once() {
    static const bool done = [] {
        struct sigaction sa {};
        sigaction(SIGPIPE, nullptr, &sa);
        if (sa.sa_handler == SIG_DFL) std::signal(SIGPIPE, SIG_IGN);
        return true;
    }();
    (void)done;
}

/// Makes `pipe` and gives it to the child as `slot`; `child_writes`: the
/// child writes to it (its stdout, stderr, replies), else reads from it.
void add_pipe(Impl& d, uv_pipe_t& pipe, uv_stdio_container_t& slot, bool child_writes) {
    uv_pipe_init(&d.loop, &pipe, 0);
    pipe.data = &d;
    slot.flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | (child_writes ? UV_WRITABLE_PIPE : UV_READABLE_PIPE));
    slot.data.stream = reinterpret_cast<uv_stream_t*>(&pipe);
}

void set_capture(Impl& d, uv_stdio_container_t* stdio) {
    add_pipe(d, d.out_pipe, stdio[1], true);
    add_pipe(d, d.err_pipe, stdio[2], true);
}

void set_log(Impl& d, uv_stdio_container_t* stdio, const std::string& path) {
    d.log_fd = open(path.empty() ? "/dev/null" : path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (d.log_fd < 0) throw ProcessError("cannot open the log file '" + path + "': " + std::strerror(errno));
    for (int i : {1, 2}) {
        stdio[i].flags = UV_INHERIT_FD;
        stdio[i].data.fd = d.log_fd;
    }
}

void set_protocol(Impl& d, uv_stdio_container_t* stdio) {
    add_pipe(d, d.to_child, stdio[3], false);
    add_pipe(d, d.from_child, stdio[4], true);
}

void close_handle(uv_handle_t* h) {
    if (h->loop && !uv_is_closing(h)) uv_close(h, nullptr);
}

/// Closes every handle, finishes the loop and the log file.
void shut_down(Impl& d) {
    for (uv_handle_t* h : {reinterpret_cast<uv_handle_t*>(&d.proc), reinterpret_cast<uv_handle_t*>(&d.timer),
                           reinterpret_cast<uv_handle_t*>(&d.to_child), reinterpret_cast<uv_handle_t*>(&d.from_child),
                           reinterpret_cast<uv_handle_t*>(&d.out_pipe), reinterpret_cast<uv_handle_t*>(&d.err_pipe)})
        close_handle(h);
    uv_run(&d.loop, UV_RUN_DEFAULT);
    uv_loop_close(&d.loop);
    if (d.log_fd >= 0) close(d.log_fd);
    d.log_fd = -1;
}

}  // namespace

ChildProcess::ChildProcess(const ProcessOptions& o) : impl_(std::make_unique<Impl>()) {
    if (o.argv.empty()) throw ProcessError("no program to start");
    Impl& d = *impl_;
    d.protocol = o.protocol_pipes;
    d.capture = o.capture_output;
    if (d.protocol) ignore_sigpipe_once();
    uv_loop_init(&d.loop);
    uv_timer_init(&d.loop, &d.timer);
    d.timer.data = &d;
    uv_stdio_container_t stdio[5] = {};
    stdio[0].flags = UV_IGNORE;
    if (d.capture) {
        set_capture(d, stdio);
    } else {
        try {
            set_log(d, stdio, o.log_path);
        } catch (...) {
            shut_down(d);
            throw;
        }
    }
    if (d.protocol) set_protocol(d, stdio);
    std::vector<char*> args;
    for (const auto& a : o.argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    // The environment: ours, with o.env's variables set over it.
    std::vector<std::string> env_text;
    for (char** e = environ; e && *e; ++e) {
        const std::string kv = *e;
        bool replaced = false;
        for (const auto& set : o.env) replaced = replaced || kv.compare(0, set.find('=') + 1, set, 0, set.find('=') + 1) == 0;
        if (!replaced) env_text.push_back(kv);
    }
    env_text.insert(env_text.end(), o.env.begin(), o.env.end());
    std::vector<char*> envp;
    for (auto& kv : env_text) envp.push_back(kv.data());
    envp.push_back(nullptr);
    uv_process_options_t po{};
    po.env = o.env.empty() ? nullptr : envp.data();
    po.exit_cb = on_exit;
    po.file = args[0];
    po.args = args.data();
    po.cwd = o.cwd.empty() ? nullptr : o.cwd.c_str();
    po.stdio_count = d.protocol ? 5 : 3;
    po.stdio = stdio;
    d.proc.data = &d;
    if (const int e = uv_spawn(&d.loop, &d.proc, &po)) {
        shut_down(d);
        throw ProcessError("cannot start '" + o.argv[0] + "': " + uv_strerror(e));
    }
    if (d.protocol) uv_read_start(reinterpret_cast<uv_stream_t*>(&d.from_child), on_alloc, on_protocol_read);
    if (d.capture) {
        d.out_open = 2;
        uv_read_start(reinterpret_cast<uv_stream_t*>(&d.out_pipe), on_alloc, on_output_read);
        uv_read_start(reinterpret_cast<uv_stream_t*>(&d.err_pipe), on_alloc, on_output_read);
    }
}

ChildProcess::~ChildProcess() {
    Impl& d = *impl_;
    if (!d.exited) kill();
    shut_down(d);
}

WaitResult ChildProcess::send(const void* data, size_t n, double timeout_s) {
    Impl& d = *impl_;
    if (!d.protocol || d.exited) return WaitResult::Exited;
    uv_write_t req;
    req.data = &d;
    d.write_done = false;
    uv_buf_t buf = uv_buf_init(static_cast<char*>(const_cast<void*>(data)), static_cast<unsigned>(n));
    if (uv_write(&req, reinterpret_cast<uv_stream_t*>(&d.to_child), &buf, 1, on_write) != 0) return WaitResult::Exited;
    const WaitResult r = run_until(d, timeout_s, [&] { return d.write_done; }, [] { return false; });
    if (r == WaitResult::Timeout) return r;
    return d.write_status == 0 ? WaitResult::Ok : WaitResult::Exited;
}

WaitResult ChildProcess::receive(void* data, size_t n, double timeout_s) {
    Impl& d = *impl_;
    if (!d.protocol) return WaitResult::Exited;
    const WaitResult r = run_until(
        d, timeout_s, [&] { return d.inbox.size() >= n; }, [&] { return d.from_eof; });
    if (r != WaitResult::Ok) return r;
    std::memcpy(data, d.inbox.data(), n);
    d.inbox.erase(0, n);
    return WaitResult::Ok;
}

WaitResult ChildProcess::wait(double timeout_s) {
    Impl& d = *impl_;
    return run_until(
        d, timeout_s, [&] { return d.exited && d.out_open <= 0; }, [] { return false; });
}

void ChildProcess::kill() {
    Impl& d = *impl_;
    if (d.exited) return;
    uv_process_kill(&d.proc, SIGKILL);
    while (!d.exited) uv_run(&d.loop, UV_RUN_ONCE);
}

void ChildProcess::signal_kill() {
    if (!impl_->exited) uv_process_kill(&impl_->proc, SIGKILL);
}

bool ChildProcess::exited() const { return impl_->exited; }
int ChildProcess::pid() const { return impl_->proc.pid; }
int ChildProcess::exit_code() const { return static_cast<int>(impl_->exit_status); }
int ChildProcess::term_signal() const { return impl_->signal; }
const std::string& ChildProcess::output() const { return impl_->output; }

std::string ChildProcess::describe_exit() const {
    if (!impl_->exited) return "still running";
    if (impl_->signal) return "signal " + std::to_string(impl_->signal) + " (" + strsignal(impl_->signal) + ")";
    return "exit code " + std::to_string(impl_->exit_status);
}

namespace {

/// Waits for `p` to end (killed after timeout_s) and gives its outcome.
CapturedRun finish_captured(ChildProcess& p, double timeout_s) {
    CapturedRun run;
    run.timed_out = p.wait(timeout_s) == WaitResult::Timeout;
    if (run.timed_out) p.kill();
    run.output = p.output();
    run.exit_code = p.exit_code();
    run.term_signal = p.term_signal();
    run.exit_text = p.describe_exit();
    return run;
}

ProcessOptions gated_options(const std::vector<std::string>& argv, const std::string& cwd, const std::string& gate,
                             const std::vector<std::string>& gate_env) {
    ProcessOptions o;
    o.argv = argv;
    o.cwd = cwd;
    o.capture_output = true;
    o.protocol_pipes = !gate.empty();  // fd 3: the go, fd 4: 'W' at the gate
    if (!gate.empty()) {
        const char* preload = std::getenv("LD_PRELOAD");
        o.env = {"LD_PRELOAD=" + gate + (preload && *preload ? std::string(":") + preload : ""), "CR_CUDA_GATE=1"};
        o.env.insert(o.env.end(), gate_env.begin(), gate_env.end());
    }
    return o;
}

}  // namespace

CapturedRun run_captured(const std::vector<std::string>& argv, double timeout_s, const std::string& cwd,
                         const std::vector<std::string>& env) {
    ProcessOptions o;
    o.argv = argv;
    o.cwd = cwd;
    o.env = env;
    o.capture_output = true;
    ChildProcess p(o);
    return finish_captured(p, timeout_s);
}

GatedRun::GatedRun(const std::vector<std::string>& argv, const std::string& cwd, const std::string& gate_library,
                   const std::vector<std::string>& gate_env)
    : process_(gated_options(argv, cwd, gate_library, gate_env)), asked_(gate_library.empty()) {}

bool GatedRun::reached_gate(double timeout_s) {
    if (!asked_) {
        asked_ = true;
        char w = 0;
        at_gate_ = process_.receive(&w, 1, timeout_s) == WaitResult::Ok && w == 'W';
    }
    return at_gate_;
}

CapturedRun GatedRun::finish(double timeout_s) {
    const char go = 'G';
    process_.send(&go, 1, 1);  // a program gone, or past a gate it never met, takes no go: nothing to do
    return finish_captured(process_, timeout_s);
}

std::string find_beside_this_program(const std::string& name, const std::function<bool(const std::string&)>& usable) {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return "";
    for (std::filesystem::path dir = self.parent_path(); !dir.empty(); dir = dir.parent_path()) {
        if (usable((dir / name).string())) return (dir / name).string();
        if (dir == self.parent_path().parent_path().parent_path() || dir == dir.root_path()) break;
    }
    return "";
}

std::string find_cuda_gate() {
    const auto exists = [](const std::string& p) { return std::filesystem::exists(p); };
    std::string found = find_beside_this_program("libcr_cuda_gate.so", exists);
#ifdef CR_CUDA_GATE_PATH
    if (found.empty() && exists(CR_CUDA_GATE_PATH)) found = CR_CUDA_GATE_PATH;
#endif
    return found;
}

std::string find_on_path(const std::string& program) {
    const char* path = std::getenv("PATH");
    if (!path) return "";
    const std::string all = path;
    for (size_t pos = 0; pos <= all.size();) {
        size_t colon = all.find(':', pos);
        if (colon == std::string::npos) colon = all.size();
        const std::string dir = all.substr(pos, colon - pos);
        pos = colon + 1;
        const std::string full = (dir.empty() ? "." : dir) + "/" + program;
        if (access(full.c_str(), X_OK) == 0) return full;
    }
    return "";
}

std::string find_cuda_tool(const std::string& tool, const std::string& exact,
                           const std::vector<std::string>& extra_tries) {
    if (!exact.empty()) return access(exact.c_str(), X_OK) == 0 ? exact : "";
    std::vector<std::string> tries = {find_on_path(tool)};
    if (const char* home = std::getenv("CUDA_HOME")) tries.push_back(std::string(home) + "/bin/" + tool);
    tries.push_back("/usr/local/cuda/bin/" + tool);
    tries.insert(tries.end(), extra_tries.begin(), extra_tries.end());
    for (const auto& t : tries)
        if (!t.empty() && access(t.c_str(), X_OK) == 0) return t;
    return "";
}

}  // namespace cr::student
