import Foundation

/// Threads of the SDK's own, where its calls run.
///
/// The SDK's bindings poll its Rust futures on the thread that awaits them, so a step of the
/// SDK's that blocks blocks that thread. On Swift's shared pool — as many threads as cores —
/// that would stall every other task of the process: a page of `hawala app`, the timer that
/// ends an overrunning call. Here a blocked call holds one of these threads only.
final class SparkExecutor: TaskExecutor, @unchecked Sendable {
    /// The process's one executor for SDK calls.
    static let shared = SparkExecutor(threads: 4, atMost: 64)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var threads = 0, idle = 0
    private let atMost: Int

    /// `threads` to start with; one more whenever a job comes and none is idle (a call that
    /// overruns its deadline keeps its thread), up to `atMost`.
    private init(threads: Int, atMost: Int) {
        self.atMost = atMost
        condition.lock()
        for _ in 0..<threads { startThread() }
        condition.unlock()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        if idle < jobs.count, threads < atMost { startThread() }
        condition.signal()
        condition.unlock()
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Called with `condition` locked. The thread counts as idle from now.
    private func startThread() {
        let name = "hawala-spark-\(threads)"
        threads += 1
        idle += 1
        let thread = Thread { [unowned self] in
            SparkExecutor.nameThisThread(name)
            self.work()
        }
        thread.name = name
        thread.start()
    }

    private func work() {
        condition.lock()
        while true {
            while jobs.isEmpty { condition.wait() }
            idle -= 1
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
            condition.lock()
            idle += 1
        }
    }

    /// What a debugger and `top -H` show. Foundation names the thread on Apple's systems only.
    private static func nameThisThread(_ name: String) {
        #if os(Linux)
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        _ = name.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, min($0.count - 1, 15)) }
        close(fd)
        #endif
    }
}
