#include "render/student/shared_region.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/mman.h>
#include <unistd.h>

namespace cr::student {

namespace {

void* map_fd(int fd, size_t bytes, const std::string& name) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) throw std::runtime_error("cannot map shared memory " + name + ": " + std::strerror(errno));
    return p;
}

}  // namespace

SharedRegion::~SharedRegion() { release(); }

SharedRegion::SharedRegion(SharedRegion&& o) noexcept { *this = std::move(o); }

SharedRegion& SharedRegion::operator=(SharedRegion&& o) noexcept {
    if (this != &o) {
        release();
        std::swap(data_, o.data_);
        std::swap(size_, o.size_);
        std::swap(name_, o.name_);
        std::swap(owner_, o.owner_);
    }
    return *this;
}

void SharedRegion::release() {
    if (data_) munmap(data_, size_);
    if (owner_ && !name_.empty()) shm_unlink(name_.c_str());
    data_ = nullptr;
    size_ = 0;
    name_.clear();
    owner_ = false;
}

void SharedRegion::unlink_now() {
    if (owner_ && !name_.empty()) shm_unlink(name_.c_str());
    owner_ = false;
}

SharedRegion SharedRegion::create(size_t bytes) {
    static std::atomic<unsigned> counter{0};
    constexpr int kTries = 64;  // names taken by stale regions of an earlier process with our pid
    SharedRegion r;
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < kTries; ++attempt) {
        r.name_ = "/circle-renderer-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
        fd = shm_open(r.name_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) throw std::runtime_error("cannot create shared memory " + r.name_ + ": " + std::strerror(errno));
    r.owner_ = true;  // from here on the destructor unlinks the name
    r.size_ = bytes ? bytes : 1;
    if (ftruncate(fd, static_cast<off_t>(r.size_)) != 0) {
        const std::string why = std::strerror(errno);
        close(fd);
        throw std::runtime_error("cannot size shared memory " + r.name_ + " to " + std::to_string(bytes) +
                                 " bytes: " + why);
    }
    try {
        r.data_ = map_fd(fd, r.size_, r.name_);
    } catch (...) {
        close(fd);
        throw;
    }
    close(fd);
    return r;
}

SharedRegion SharedRegion::open(const std::string& name, size_t bytes) {
    SharedRegion r;
    const int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) throw std::runtime_error("cannot open shared memory " + name + ": " + std::strerror(errno));
    r.name_ = name;
    r.size_ = bytes ? bytes : 1;
    try {
        r.data_ = map_fd(fd, r.size_, name);
    } catch (...) {
        close(fd);
        throw;
    }
    close(fd);
    return r;
}

}  // namespace cr::student
