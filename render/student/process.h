// A child process with time limits, on libuv: used to run nvcc (output
// captured) and the student-renderer worker (a request/reply protocol over
// two pipes, its own chatter sent to a log file).
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace cr::student {

/// The process could not be started (what() names the program and the cause).
struct ProcessError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// How to start a ChildProcess.
struct ProcessOptions {
    std::vector<std::string> argv;  ///< program (a path) and its arguments
    std::string cwd;                ///< working directory ("" = ours)
    /// Standard output and error of the child: captured into output() when
    /// `capture_output`, else appended to `log_path` ("" = /dev/null).
    bool capture_output = false;
    std::string log_path;
    /// Two extra pipes: the child reads requests on fd 3 and writes replies on fd 4.
    bool protocol_pipes = false;
    /// Variables set for the child ("NAME=VALUE"), over this process's environment.
    std::vector<std::string> env;
};

/// How a wait for the child ended.
enum class WaitResult { Ok, Timeout, Exited };

/// A running child process (RAII: the destructor kills it with SIGKILL if it
/// still runs, and reaps it). Not thread-safe; one owner thread at a time.
class ChildProcess {
public:
    /// Starts the process. Throws ProcessError when it cannot be spawned.
    explicit ChildProcess(const ProcessOptions& options);
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    /// Writes n bytes to the child's fd 3. Exited when the child is gone.
    WaitResult send(const void* data, size_t n, double timeout_s);
    /// Reads exactly n bytes from the child's fd 4.
    WaitResult receive(void* data, size_t n, double timeout_s);
    /// Waits until the child exits (and, when capturing, its output is read).
    WaitResult wait(double timeout_s);
    /// Kills the child with SIGKILL and waits for it to be reaped.
    void kill();
    /// Sends SIGKILL without waiting (the destructor reaps the child).
    void signal_kill();

    bool exited() const;
    /// The child's process id.
    int pid() const;
    /// Exit code (when exited normally) and the terminating signal (0 if none).
    int exit_code() const;
    int term_signal() const;
    /// The captured standard output and error (capture_output).
    const std::string& output() const;
    /// "exit code 2" or "signal 11 (Segmentation fault)".
    std::string describe_exit() const;

    /// The libuv state (opaque; public so the libuv callbacks can name it).
    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

/// The outcome of run_captured.
struct CapturedRun {
    std::string output;   ///< standard output and error, as they arrived
    bool timed_out = false;
    int exit_code = -1;   ///< when it exited normally
    int term_signal = 0;  ///< when a signal ended it
    std::string exit_text;  ///< ChildProcess::describe_exit()
};

/// Runs a program to completion with its output captured; a run longer than
/// `timeout_s` is killed (timed_out). Throws ProcessError when it cannot be started.
CapturedRun run_captured(const std::vector<std::string>& argv, double timeout_s, const std::string& cwd = "",
                         const std::vector<std::string>& env = {});

/// A program started now but held back where it first loads the CUDA
/// driver (libcr_cuda_gate.so preloaded: cuda_gate.c) until finish() lets
/// it on: its start-up before that (exec, the dynamic loader, its own CPU
/// work such as generating a scene) may overlap another program's GPU work,
/// while its own GPU work starts only when its owner says. Output captured.
/// A program that loads the driver some other way is not held (reached_gate()
/// then says no); so is every program when `gate_library` is "".
class GatedRun {
public:
    /// Starts `argv` in `cwd`; `gate_env`: variables ("NAME=VALUE") for the
    /// gate library, set only when there is one (CR_SKIP_FILE, cuda_gate.c).
    /// Throws ProcessError when it cannot be spawned.
    GatedRun(const std::vector<std::string>& argv, const std::string& cwd, const std::string& gate_library,
             const std::vector<std::string>& gate_env = {});
    /// Waits (at most timeout_s) until the program waits at the gate: true;
    /// false when it exited, or ran on, without reaching it.
    bool reached_gate(double timeout_s);
    /// Lets the program on, waits for its exit (killed after timeout_s) and
    /// gives its outcome.
    CapturedRun finish(double timeout_s);

private:
    ChildProcess process_;
    bool asked_ = false, at_gate_ = false;
};

/// The gate library beside this program (libcr_cuda_gate.so, as
/// find_beside_this_program looks), else where the build put it; "" when
/// not found.
std::string find_cuda_gate();

/// `name` in this program's folder or one or two folders above it, the
/// first for which `usable(path)` holds; "" when none.
std::string find_beside_this_program(const std::string& name, const std::function<bool(const std::string&)>& usable);

/// The absolute path of `program` found on PATH ("" when not found).
std::string find_on_path(const std::string& program);

/// A CUDA tool (nvcc, ncu): when `exact` is non-empty it is the only
/// candidate (the user's choice, e.g. $CR_NVCC: no fallbacks); else the
/// first executable of PATH, $CUDA_HOME/bin, /usr/local/cuda/bin, then
/// `extra_tries` in order. "" when none is executable.
std::string find_cuda_tool(const std::string& tool, const std::string& exact,
                           const std::vector<std::string>& extra_tries = {});

}  // namespace cr::student
