import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `rotationd --report` beside a service that will not share its raw samples with the user running it.
@Suite("rotationd --report refused the service's samples")
struct ReportRefusalTests {
    @Test("a user the service shares no samples with is told to run the report as root, and nothing is written",
          .enabled(if: geteuid() == 0, "running the report as another user needs root"))
    func refusedUserToldHow() throws {
        let dir = try ScratchDirectory()
        chmod(dir.url.path, 0o777)
        let trace = dir.path("t.csv")
        try SyntheticTraces.turns(to: trace, lead: 0.5, count: 4, hold: 0.5)
        let run = try ServiceRun(trace: trace, socket: dir.path("s.sock"), in: dir)
        #expect(run.waitUntilServing())
        let out = dir.path("reports")
        let report = try ChildProcess("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                           PackagePaths.binary("rotationd"), "--report", out, "--socket", run.socket],
                                      in: dir, tag: "report")
        #expect(report.wait(timeout: Tolerance.slowReply) == 1, "\(report.stdout)\(report.stderr)")
        #expect(report.stderr.contains("rotationd: error: --report: the service on \(run.socket) shares raw samples only with root "
                                       + "and the members of its --samples-group, and a report records them: run it as root, such as "
                                       + "sudo rotationd --report DIR"), "\(report.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out), "the report wrote \(out)")
        run.child.stop()
    }
}
