#if canImport(Glibc)
import Glibc
#endif

/// The entry point every fuzz target shares: a libFuzzer fuzzer in a fuzzing build, a replayer otherwise.
///
/// Built by `make fuzz` (`-sanitize=fuzzer,address -D FUZZING`), a target hands its test to libFuzzer, which
/// calls it with generated inputs and takes the same arguments as any libFuzzer binary (corpus directories,
/// `-max_total_time=`...). In an ordinary build the target runs its test once on each file given, and on each
/// file of each directory given, so that the seed corpora and the inputs of past findings are replayed by the
/// test suite. A failed check in a test is a crash either way.
public enum FuzzInput {
    /// Runs `test` as described on the type; never returns.
    public static func main(_ test: @escaping ([UInt8]) -> Void) -> Never {
        current = test
        #if FUZZING
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOne(data, size) })
        #else
        var count = 0
        for argument in CommandLine.arguments.dropFirst() {
            for path in files(argument) {
                guard let bytes = read(path) else {
                    print("cannot read \(path)")
                    exit(2)
                }
                test(bytes)
                count += 1
            }
        }
        print("\(count) inputs passed")
        exit(0)
        #endif
    }

    /// The running target's test.
    nonisolated(unsafe) static var current: (([UInt8]) -> Void)?

    /// `path` itself, or the regular files in it (not recursing), sorted.
    static func files(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [path] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(path + "/" + name) }
        }
        return names.sorted()
    }

    /// The whole content of `path`, or nil when it cannot be read.
    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 { return nil }
            if n == 0 { return out }
            out += buffer[..<n]
        }
    }
}

/// libFuzzer's entry for one input: the running target's test.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let test = FuzzInput.current else { fatalError("no fuzz test: the target's main must call FuzzInput.main") }
    test(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if FUZZING
/// libFuzzer's driver, for a program with its own main (compiler-rt's FuzzerInterface.h).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt
#endif
