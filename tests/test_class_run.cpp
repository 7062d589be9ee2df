// `render grade --class` on a class of the harness's fixtures (every course
// layout and fault, as folders and as course-style archives): each entry
// gets its row, nothing in the class folder changes, a rerun grades only
// what changed; and the same class as a Slurm job array on a real one-node
// Slurm (munged, slurmctld and slurmd started here, stopped after). Without
// a GPU the class is built, not graded (as the tasks are).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/file_checks.h"
#include "render/renderer_factory.h"
#include "render/student/process.h"
#include "tests/archive_fixture.h"
#include "tests/student_fixtures.h"

#ifndef RENDER_EXE
#error "RENDER_EXE must be defined by tests/CMakeLists.txt"
#endif

namespace cr {
namespace {

namespace fs = std::filesystem;
using cr::testing_files::TempDir;
using json = nlohmann::json;
using testing_archives::files_of;
using testing_archives::write_archive;
using testing_students::fixture_cache_root;
using testing_students::fixture_root;

/// The class: 11 fixture folders under students' names, lee.tar.gz as the
/// course's create_submission.sh makes it (saxpy/ scan/ render/), max.zip (a
/// compile error), and ned/ without a course folder. 14 entries.
size_t make_class(const fs::path& dir) {
    const std::pair<const char*, const char*> folders[] = {
        {"ana", "layout_a"}, {"ben", "layout_b"}, {"cho", "layout_c"}, {"dev", "fast"}, {"eli", "correct"},
        {"fay", "racy"}, {"gus", "out_of_bounds"}, {"hal", "hang"}, {"ivy", "host_hog"}, {"jon", "define_uint"},
        {"kim", "no_scan_block_dim"}};
    fs::create_directories(dir);
    for (const auto& [student, fixture] : folders) fs::copy(fixture_root() + "/" + fixture, dir / student);
    auto lee = files_of(fixture_root() + "/layout_c", "render/");
    lee.push_back({"saxpy/saxpy.cu", "// the course's part 1"});
    lee.push_back({"scan/scan.cu", "// the course's part 2"});
    write_archive(dir / "lee.tar.gz", lee, false);
    write_archive(dir / "max.zip", files_of(fixture_root() + "/compile_error", "render/"), true);
    fs::create_directories(dir / "ned");
    std::ofstream(dir / "ned" / "README") << "no renderer here";
    return 14;
}

/// Every file of `dir` with its size and time, to show nothing changed.
std::string tree_print(const fs::path& dir) {
    std::string out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file())
            out += e.path().string() + " " + std::to_string(e.file_size()) + " " +
                   std::to_string(e.last_write_time().time_since_epoch().count()) + "\n";
    return out;
}

struct CliRun {
    int code;
    std::string out;
};

CliRun render(const std::string& args, const std::vector<std::string>& env = {}) {
    std::vector<std::string> all = {"CR_STUDENT_CACHE=" + fixture_cache_root()};
    all.insert(all.end(), env.begin(), env.end());
    std::vector<std::string> argv = {RENDER_EXE};
    std::istringstream in(args);
    for (std::string a; in >> a;) argv.push_back(a);
    const student::CapturedRun r = student::run_captured(argv, 1800, "", all);
    return {r.exit_code, r.output};
}

json read_json(const fs::path& p) {
    std::ifstream in(p);
    return json::parse(in);
}

/// The statuses a class of make_class gets here: graded with a GPU, built without.
void expect_rows(const fs::path& results, bool graded) {
    const std::string built = graded ? "graded" : "built (not graded: no GPU here)";
    for (const char* id : {"ana", "ben", "cho", "dev", "eli", "jon", "kim", "lee"})
        EXPECT_EQ(read_json(results / (std::string(id) + ".json"))["status"], built) << id;
    EXPECT_EQ(read_json(results / "max.json")["status"], "build failed");
    EXPECT_EQ(read_json(results / "ned.json")["status"], "no course folder");
    EXPECT_EQ(read_json(results / "lee.json")["layout"], "course layout C (October 2025 on): seeds, 14 scenes (your circleRenderer.h: 14 scenes, loadScene(SceneName, int seed))");
    std::ifstream csv(results / "grades.csv");
    size_t rows = 0;
    for (std::string line; std::getline(csv, line);) ++rows;
    EXPECT_EQ(rows, 15u);  // the header and 14 students
    EXPECT_TRUE(fs::exists(results / "report.html"));
    EXPECT_TRUE(fs::exists(results / "students" / "max.html"));
    // A failed build still says which year's folder it was read as, on its row and its page.
    const std::string max_layout = read_json(results / "max.json")["layout"];
    EXPECT_EQ(max_layout.rfind("course layout C (October 2025 on)", 0), 0u) << max_layout;
    std::ifstream page(results / "students" / "max.html");
    const std::string html((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
    EXPECT_NE(html.find("build failed; course layout C"), std::string::npos) << html.substr(0, 600);
    EXPECT_NE(html.find("identifier &quot;pixelShade&quot; is undefined"), std::string::npos);
}

TEST(ClassRun, EveryEntryGetsItsRowAndARerunGradesOnlyWhatChanged) {
    REQUIRE_NVCC();
    TempDir d("classrun");
    const size_t n = make_class(d.dir() / "class");
    const std::string before = tree_print(d.dir() / "class");
    const CliRun first = render("grade --class " + (d.dir() / "class").string() + " --out " + (d.dir() / "results").string());
    ASSERT_EQ(first.code, 0) << first.out;
    EXPECT_NE(first.out.find(std::to_string(n) + " students, 0 unchanged since their last grade"), std::string::npos) << first.out;
    EXPECT_NE(first.out.find(" s of wall time"), std::string::npos);
    expect_rows(d.dir() / "results", gpu_count() > 0);
    EXPECT_EQ(tree_print(d.dir() / "class"), before) << "the class folder was changed";
    EXPECT_TRUE(fs::exists(d.dir() / "results" / "unpacked" / "lee" / "render" / "cudaRenderer.cu"));
    const CliRun again = render("grade --class " + (d.dir() / "class").string() + " --out " + (d.dir() / "results").string());
    EXPECT_NE(again.out.find(std::to_string(n) + " students, " + std::to_string(n) + " unchanged"), std::string::npos) << again.out;
    std::ofstream(d.dir() / "class" / "ben" / "cudaRenderer.h", std::ios::app) << "// changed\n";
    const CliRun changed = render("grade --class " + (d.dir() / "class").string() + " --out " + (d.dir() / "results").string());
    EXPECT_NE(changed.out.find(std::to_string(n) + " students, " + std::to_string(n - 1) + " unchanged"), std::string::npos)
        << changed.out;
    EXPECT_NE(changed.out.find("ben: built"), std::string::npos) << changed.out;
}

// ---- a real one-node Slurm ------------------------------------------------

/// munged, slurmctld and slurmd for this test, on private ports and files; stopped by the destructor.
class LocalSlurm {
public:
    explicit LocalSlurm(const fs::path& dir) : dir_(dir) {
        for (const char* sub : {"munge", "state", "spool", "log"}) fs::create_directories(dir / sub);
        write_key();
        run("munged --force --key-file=" + p("munge/key") + " --socket=" + p("munge/socket") + " --pid-file=" +
            p("munge/pid") + " --log-file=" + p("log/munged.log") + " --seed-file=" + p("munge/seed"));
        write_conf();
        setenv("SLURM_CONF", p("slurm.conf").c_str(), 1);
        run("slurmctld -i -f " + p("slurm.conf"));
        run("slurmd -f " + p("slurm.conf"));
    }
    ~LocalSlurm() {
        for (const char* pid : {"slurmd.pid", "slurmctld.pid", "munge/pid"}) {
            std::ifstream in(dir_ / pid);
            int n = 0;
            if (in >> n && n > 0) kill(n, SIGTERM);
        }
        std::this_thread::sleep_for(std::chrono::seconds(1));
        unsetenv("SLURM_CONF");
    }
    /// Waits until the node takes jobs (30 s at most).
    bool ready() const {
        for (int i = 0; i < 60; ++i) {
            const student::CapturedRun r = student::run_captured({"sinfo", "-h", "-o", "%T"}, 10);
            if (r.output.find("idle") != std::string::npos) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
        }
        return false;
    }
    /// Waits until no job is queued or running (`seconds` at most).
    bool drained(int seconds) const {
        for (int i = 0; i < 2 * seconds; ++i) {
            const student::CapturedRun r = student::run_captured({"squeue", "-h"}, 10);
            if (r.exit_code == 0 && r.output.find_first_not_of(" \n") == std::string::npos) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
        }
        return false;
    }

private:
    std::string p(const char* rel) const { return (dir_ / rel).string(); }
    static void run(const std::string& cmd) { ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd; }
    void write_key() const {
        std::ofstream key(dir_ / "munge" / "key", std::ios::binary);
        std::ifstream random("/dev/urandom", std::ios::binary);
        std::string bytes(1024, '\0');
        random.read(bytes.data(), 1024);
        key << bytes;
        key.close();
        fs::permissions(dir_ / "munge" / "key", fs::perms::owner_read);
    }
    void write_conf() const {
        char host[256] = {0};
        gethostname(host, sizeof host - 1);
        const std::string h = std::string(host).substr(0, std::string(host).find('.'));
        std::ofstream c(dir_ / "slurm.conf");
        c << "ClusterName=crtest\nSlurmctldHost=" << h << "\nSlurmUser=root\nSlurmdUser=root\n"
          << "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << p("munge/socket") << "\n"
          << "StateSaveLocation=" << p("state") << "\nSlurmdSpoolDir=" << p("spool") << "\n"
          << "SlurmctldPidFile=" << p("slurmctld.pid") << "\nSlurmdPidFile=" << p("slurmd.pid") << "\n"
          << "SlurmctldLogFile=" << p("log/slurmctld.log") << "\nSlurmdLogFile=" << p("log/slurmd.log") << "\n"
          << "SlurmctldPort=26817\nSlurmdPort=26818\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
          << "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nMpiDefault=none\nReturnToService=2\n"
          << "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
          << "NodeName=" << h << " CPUs=" << std::max(1u, std::thread::hardware_concurrency())
          << " RealMemory=1000 State=UNKNOWN\nPartitionName=debug Nodes=" << h << " Default=YES MaxTime=INFINITE State=UP\n";
    }
    fs::path dir_;
};

bool slurm_here(std::string& why) {
    if (geteuid() != 0) why = "the local Slurm of this test runs its daemons as root";
    for (const char* tool : {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo"})
        if (why.empty() && student::find_on_path(tool).empty() && access((std::string("/usr/sbin/") + tool).c_str(), X_OK) != 0)
            why = std::string("no ") + tool + " (apt-get install slurm-wlm munge)";
    return why.empty();
}

TEST(ClassSlurm, AJobArrayOnARealOneNodeSlurmAndTheCollectedReport) {
    REQUIRE_NVCC();
    std::string why;
    if (!slurm_here(why)) GTEST_SKIP() << why;
    TempDir d("classrun");
    const size_t n = make_class(d.dir() / "class");
    LocalSlurm slurm(d.dir() / "slurm");
    ASSERT_TRUE(slurm.ready()) << "the local Slurm node did not come up";
    const fs::path results = d.dir() / "results";
    const CliRun submit = render("grade --class " + (d.dir() / "class").string() + " --out " + results.string() +
                              " --slurm --slurm-gpus 0");
    ASSERT_EQ(submit.code, 0) << submit.out;
    EXPECT_NE(submit.out.find(std::to_string(n) + " tasks (one a student)"), std::string::npos) << submit.out;
    ASSERT_TRUE(slurm.drained(900)) << "the job array did not finish";
    const CliRun collect = render("grade --collect " + results.string());
    ASSERT_EQ(collect.code, 0) << collect.out;
    EXPECT_NE(collect.out.find(std::to_string(n) + " of " + std::to_string(n) + " students have a result, 0 missing"),
              std::string::npos)
        << collect.out;
    expect_rows(results, false);  // the tasks asked for no GPU: built, not graded
    EXPECT_TRUE(fs::exists(results / "slurm" / "task-0.out"));
}

}  // namespace
}  // namespace cr
