import Foundation

/// Threads of the SDK's own, where its calls run.
///
/// The SDK's bindings poll its Rust futures on the thread that awaits them, so a step of the
/// SDK's that blocks blocks that thread. On Swift's shared pool — as many threads as cores —
/// that would stall every other task of the process: a page of `hawala app`, the timer that
/// ends an overrunning call. Here a blocked call holds one of these threads only.
final class SparkExecutor: TaskExecutor, @unchecked Sendable {
    /// The process's one executor for SDK calls.
    static let shared = SparkExecutor(threads: 4)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init(threads: Int) {
        for index in 0..<threads {
            let name = "hawala-spark-\(index)"
            let thread = Thread { [unowned self] in
                SparkExecutor.nameThisThread(name)
                self.work()
            }
            thread.name = name
            thread.start()
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

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
