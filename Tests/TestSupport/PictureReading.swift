import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A picture `rotationd --replay --picture` or `--report` drew, read back as a maintainer's eye would: parsed as
/// XML, its time axis read from the tick labels, and the marks found by their classes.
///
/// The time axis is read from the labels the picture prints, not from the code that placed the marks, so that a
/// mark drawn at the wrong time is found.
public struct PictureReading {
    /// One element: its name, attributes and text.
    public struct Element {
        /// The element's name, such as `line` or `text`.
        public let name: String
        /// Its attributes; a mark's line also carries its group's `data-number`.
        public let attributes: [String: String]
        /// The text it holds, without that of a tooltip (`title`).
        public var text = ""
        /// The classes of the element itself and of the groups around it.
        public let classes: Set<String>

        /// A numeric attribute.
        public func number(_ key: String) -> Double? { attributes[key].flatMap(Double.init) }
    }

    /// Every element, in document order.
    public let elements: [Element]
    /// The time axis's ticks: the seconds each label says and the x where it stands.
    public let ticks: [(seconds: Double, x: Double)]

    /// Parses `svg`; throws when it is not well-formed XML or has fewer than two time labels.
    public init(svg: String) throws {
        let collector = Collector()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = collector
        guard parser.parse() else {
            throw Failure(description: "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "unknown error") "
                          + "at line \(parser.lineNumber), column \(parser.columnNumber)")
        }
        elements = collector.elements
        ticks = elements.filter { $0.classes.contains("time-tick") }.compactMap { e in
            guard let seconds = Double(e.text.trimmingCharacters(in: .whitespaces)), let x = e.number("x") else { return nil }
            return (seconds, x)
        }
        guard ticks.count >= 2 else { throw Failure(description: "fewer than two time labels: \(ticks)") }
    }

    /// Why a picture could not be read.
    public struct Failure: Error, CustomStringConvertible {
        /// What was wrong with it.
        public let description: String
    }

    /// Where `seconds` after the first sample falls on the time axis, by the first and last labels.
    public func x(seconds: Double) -> Double {
        let a = ticks.first!, b = ticks.last!
        return a.x + (seconds - a.seconds) / (b.seconds - a.seconds) * (b.x - a.x)
    }

    /// The elements with class `name` (on themselves or on a group around them).
    public func all(_ name: String) -> [Element] { elements.filter { $0.classes.contains(name) } }

    /// The marks' lines in order: each mark's number, what it marks (`rotation`, `flat`, `posture`, `inputs`) and
    /// its x.
    public var marks: [(number: Int, parts: Set<String>, x: Double)] {
        all("mark-line").compactMap { line in
            guard let x = line.number("x1"), let numberText = line.attributes["data-number"], let n = Int(numberText) else {
                return nil
            }
            return (n, line.classes.intersection(["rotation", "flat", "posture", "inputs"]), x)
        }
    }

    /// Where the picture disagrees with the states published for its trace (`states`: the `state` lines as JSON
    /// objects, in order; `start`: the trace's first sample's time, the time axis's 0): each rotation change and each
    /// posture change must be a mark of its kind at the x of its time, and each flat spell a band from the state
    /// that says flat to the one that says not, each within a pixel. Empty when they agree.
    public func mismatches(states: [[String: Any]], start: Double) -> [String] {
        var problems: [String] = []
        func changes(_ key: String) -> [Double] {
            var last: String = "null", times: [Double] = []
            for s in states {
                let value = s[key].flatMap { $0 is NSNull ? nil : "\($0)" } ?? "null"
                if value != last, let t = s["t"] as? Double { times.append(t) }
                last = value
            }
            return times
        }
        for (kind, key) in [("rotation", "rotation"), ("posture", "posture")] {
            let times = changes(key), found = marks.filter { $0.parts.contains(kind) }
            if times.count != found.count { problems.append("\(times.count) \(kind) changes but \(found.count) marks: \(times) vs \(found)") }
            for (t, mark) in zip(times, found) where abs(mark.x - x(seconds: t - start)) >= 1 {
                problems.append("\(kind) change at t = \(t) is at x = \(x(seconds: t - start)), its mark \(mark.number) at \(mark.x)")
            }
        }
        var spells: [(start: Double, end: Double?)] = []
        for s in states {
            guard let flat = s["flat"] as? Bool, let t = s["t"] as? Double else { continue }
            if flat, spells.last.map({ $0.end != nil }) ?? true { spells.append((t, nil)) }
            if !flat, let open = spells.last, open.end == nil { spells[spells.count - 1].end = t }
        }
        let bands = all("flat-band").compactMap { b in b.number("x").flatMap { x in b.number("width").map { (x, x + $0) } } }
        if bands.count != spells.count { problems.append("\(spells.count) flat spells but \(bands.count) bands: \(spells) vs \(bands)") }
        for (spell, band) in zip(spells, bands) {
            if abs(band.0 - x(seconds: spell.start - start)) >= 1 { problems.append("flat from \(spell.start): band starts at \(band.0)") }
            if let end = spell.end, abs(band.1 - x(seconds: end - start)) >= 1 { problems.append("flat until \(end): band ends at \(band.1)") }
        }
        return problems
    }

    /// The text of every `text` element with class `name`.
    public func texts(_ name: String) -> [String] { all(name).filter { $0.name == "text" }.map(\.text) }

    private final class Collector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        private var stack: [(index: Int, classes: Set<String>)] = []

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            var classes = stack.last?.classes ?? []
            for c in (attributes["class"] ?? "").split(separator: " ") { classes.insert(String(c)) }
            var attributes = attributes
            // A mark's number is on its group; its line carries it on here.
            if attributes["data-number"] == nil, let outer = stack.last.map({ elements[$0.index] }), let n = outer.attributes["data-number"] {
                attributes["data-number"] = n
            }
            elements.append(Element(name: name, attributes: attributes, classes: classes))
            stack.append((elements.count - 1, classes))
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let top = stack.last, elements[top.index].name != "title" { elements[top.index].text += string }
        }
    }
}
