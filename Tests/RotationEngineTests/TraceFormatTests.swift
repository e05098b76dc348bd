import Testing
@testable import RotationEngine
import RotationProtocol

@Suite("Trace format")
struct TraceFormatTests {
    func error(_ text: String) -> TraceError? {
        do { _ = try TraceFormat.parse(text); return nil } catch { return error }
    }

    @Test("an accelerometer-only trace parses, without gyroscope readings")
    func accelOnly() throws {
        let samples = try TraceFormat.parse("t,x,y,z\n0,0,-9.8,0\n0.02,0.1,-9.7,0.2\n")
        #expect(samples.count == 2)
        #expect(samples[1] == Sample(time: 0.02, acceleration: Vector3(0.1, -9.7, 0.2)))
        #expect(samples.allSatisfy { $0.angularVelocity == nil })
    }

    @Test("a trace with gyroscope columns carries them")
    func withGyro() throws {
        let samples = try TraceFormat.parse("t,x,y,z,gx,gy,gz\n0,0,-9.8,0,0.1,0.2,-0.3\n")
        #expect(samples.first?.angularVelocity == Vector3(0.1, 0.2, -0.3))
    }

    @Test("blank lines and a carriage return before the newline are accepted")
    func blankLinesAndCarriageReturn() throws {
        #expect(try TraceFormat.parse("t,x,y,z\n\n0,0,-9.8,0\n \n0.1,0,-9.8,0").count == 2)
        #expect(try TraceFormat.parse("t,x,y,z\n0,0,-9.8,0\r").count == 1)
    }

    @Test("a file with CRLF line ends parses like one with LF line ends")
    func crlf() throws {
        let samples = try TraceFormat.parse("t,x,y,z\r\n0,0,-9.8,0\r\n\r\n0.1,0,-9.8,0\r\n")
        #expect(samples.count == 2)
        #expect(samples.last?.time == 0.1)
    }

    @Test("a wrong header is reported on line 1 with the expected headers")
    func wrongHeader() {
        let e = error("time,x,y,z\n0,0,-9.8,0\n")
        #expect(e?.line == 1)
        #expect(e?.reason.contains("t,x,y,z") == true)
        #expect(error("")?.reason.contains("no header") == true)
    }

    @Test("a line with the wrong number of fields is reported with its line number")
    func wrongFieldCount() {
        #expect(error("t,x,y,z\n0,0,-9.8,0\n0.1,0,-9.8\n")?.line == 3)
        #expect(error("t,x,y,z\n0,0,-9.8,0,1\n")?.line == 2)
        #expect(error("t,x,y,z,gx,gy,gz\n0,0,-9.8,0\n")?.reason.contains("7") == true)
    }

    @Test("a field that is not a number, or is NaN or infinite, is reported by name")
    func nonNumeric() {
        #expect(error("t,x,y,z\n0,zero,-9.8,0\n")?.reason.contains("field x") == true)
        #expect(error("t,x,y,z\n0,0,nan,0\n")?.reason.contains("field y") == true)
        #expect(error("t,x,y,z\n0,0,-9.8,inf\n")?.reason.contains("field z") == true)
        #expect(error("t,x,y,z\nNaN,0,-9.8,0\n")?.line == 2)
    }

    @Test("time running backwards is reported")
    func timeBackwards() {
        let e = error("t,x,y,z\n1,0,-9.8,0\n0.5,0,-9.8,0\n")
        #expect(e?.line == 3)
        #expect(e?.reason.contains("backwards") == true)
    }

    @Test("lines written by the recorder parse back to the same samples")
    func roundTrip() throws {
        let s = Sample(time: 1.25, acceleration: Vector3(0.5, -9.75, 1.5), angularVelocity: Vector3(0.125, 0, -0.5))
        let text = TraceFormat.header(.gyro) + "\n" + TraceFormat.line(for: s, columns: .gyro) + "\n"
        #expect(try TraceFormat.parse(text) == [s])
    }

    @Test("three empty gyroscope fields mean no reading for that sample")
    func emptyGyroFields() throws {
        let samples = try TraceFormat.parse("t,x,y,z,gx,gy,gz\n0,0,-9.8,0,0.1,0.2,-0.3\n0.02,0,-9.8,0,,,\n0.04,0,-9.8,0, , ,\t\n")
        #expect(samples.count == 3)
        #expect(samples[0].angularVelocity == Vector3(0.1, 0.2, -0.3))
        #expect(samples[1].angularVelocity == nil)
        #expect(samples[2].angularVelocity == nil)
        #expect(samples[1].acceleration == Vector3(0, -9.8, 0))
    }

    @Test("only some gyroscope fields empty, or an empty accelerometer field, is refused")
    func partlyEmptyGyroFields() {
        let partial = error("t,x,y,z,gx,gy,gz\n0,0,-9.8,0,0.1,,\n")
        #expect(partial?.line == 2)
        #expect(partial?.reason.contains("all three empty") == true)
        #expect(error("t,x,y,z,gx,gy,gz\n0,0,,0,,,\n")?.reason.contains("field y") == true)
        #expect(error("t,x,y,z\n0,0,-9.8,\n")?.reason.contains("field z") == true)
    }

    @Test("a sample without a gyroscope reading is recorded with empty gyroscope fields and reads back without one")
    func missingReadingRoundTrip() throws {
        let s = Sample(time: 2.5, acceleration: Vector3(0.25, -9.75, 0.5))
        let line = TraceFormat.line(for: s, columns: .gyro)
        #expect(line.hasSuffix(",,,"))
        let text = TraceFormat.header(.gyro) + "\n" + line + "\n"
        #expect(try TraceFormat.parse(text) == [s])
    }

    @Test("a convertible's base, hinge and switch columns parse in any order after t,x,y,z, and round-trip")
    func postureColumns() throws {
        let samples = try TraceFormat.parse("t,x,y,z,lid_closed,bx,by,bz,hinge,tablet_mode\n0,0,-9.8,0,0,0,0,9.8,110,0\n0.02,0,-9.8,0,,,,,,1\n")
        #expect(samples.count == 2)
        #expect(samples[0].base == Vector3(0, 0, 9.8) && samples[0].hinge == 110)
        #expect(samples[0].lidClosed == false && samples[0].tabletMode == false)
        #expect(samples[1].base == nil && samples[1].hinge == nil && samples[1].lidClosed == nil)
        #expect(samples[1].tabletMode == true)
        var s = Sample(time: 1.5, acceleration: Vector3(0, -9.5, 2), angularVelocity: Vector3(0.5, 0, 0))
        s.base = Vector3(0.25, -0.5, 9.75)
        s.hinge = 117.5
        s.lidClosed = false
        let columns = TraceColumns(of: s)
        #expect(columns == [.gyro, .base, .hinge, .lidClosed])
        let text = TraceFormat.header(columns) + "\n" + TraceFormat.line(for: s, columns: columns) + "\n"
        #expect(TraceFormat.header(columns) == "t,x,y,z,gx,gy,gz,bx,by,bz,hinge,lid_closed")
        #expect(try TraceFormat.parse(text) == [s])
    }

    @Test("a base group named in part or twice, a switch other than 0 or 1, and a partly empty base are refused")
    func postureColumnsRefused() {
        #expect(error("t,x,y,z,bx,by\n0,0,-9.8,0,0,0\n")?.line == 1)
        #expect(error("t,x,y,z,hinge,hinge\n0,0,-9.8,0,1,1\n")?.line == 1)
        #expect(error("t,x,y,z,tablet_mode\n0,0,-9.8,0,2\n")?.reason.contains("0 or 1") == true)
        #expect(error("t,x,y,z,bx,by,bz\n0,0,-9.8,0,1,,\n")?.reason.contains("all three empty") == true)
    }
}
