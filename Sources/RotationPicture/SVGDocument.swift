import RotationProtocol

/// SVG text built element by element: attribute values and text escaped, numbers in plain decimals.
struct SVGDocument {
    private(set) var body = ""

    /// A number as an attribute value: at most two decimals, no exponent.
    static func number(_ value: Double) -> String { JSONWriter.format(value, decimals: 2) }

    /// `text` with the characters XML gives a meaning replaced by their entities.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // Control characters are not allowed in XML 1.0 text, whatever a trace's name holds.
                if let a = c.asciiValue, a < 0x20, a != 0x0A, a != 0x09 { out += "?" } else { out.append(c) }
            }
        }
        return out
    }

    /// An attribute's value: a number, or text.
    enum Value: ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
        case text(String)
        case number(Double)

        init(stringLiteral value: String) { self = .text(value) }
        init(floatLiteral value: Double) { self = .number(value) }
        init(integerLiteral value: Int) { self = .number(Double(value)) }

        var rendered: String {
            switch self {
            case .text(let t): SVGDocument.escaped(t)
            case .number(let n): SVGDocument.number(n)
            }
        }
    }

    private static func attributes(_ list: KeyValuePairs<String, Value>) -> String {
        list.map { " \($0.key)=\"\($0.value.rendered)\"" }.joined()
    }

    /// An element with no content.
    mutating func element(_ name: String, _ attributes: KeyValuePairs<String, Value>) {
        body += "<\(name)\(Self.attributes(attributes))/>\n"
    }

    /// An element holding `text`.
    mutating func element(_ name: String, _ attributes: KeyValuePairs<String, Value>, text: String) {
        body += "<\(name)\(Self.attributes(attributes))>\(Self.escaped(text))</\(name)>\n"
    }

    /// Opens a group; `close()` ends it.
    mutating func open(_ name: String = "g", _ attributes: KeyValuePairs<String, Value> = [:]) {
        body += "<\(name)\(Self.attributes(attributes))>\n"
    }

    /// Ends the element opened last.
    mutating func close(_ name: String = "g") { body += "</\(name)>\n" }

    /// A tooltip for the group open: the text a viewer shows on hovering over it.
    mutating func tooltip(_ text: String) { body += "<title>\(Self.escaped(text))</title>\n" }

    /// Text at (`x`, `y`).
    mutating func text(_ text: String, x: Double, y: Double, anchor: String = "start", size: Double = 12,
                       weight: String = "normal", fill: String = Palette.ink, className: String? = nil) {
        if let className {
            element("text", ["class": .text(className), "x": .number(x), "y": .number(y), "text-anchor": .text(anchor),
                             "font-size": .number(size), "font-weight": .text(weight), "fill": .text(fill)], text: text)
        } else {
            element("text", ["x": .number(x), "y": .number(y), "text-anchor": .text(anchor), "font-size": .number(size),
                             "font-weight": .text(weight), "fill": .text(fill)], text: text)
        }
    }

    /// A straight line.
    mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, width: Double = 1,
                       dash: String? = nil, className: String? = nil) {
        body += "<line" + (className.map { " class=\"\($0)\"" } ?? "")
            + " x1=\"\(Self.number(x1))\" y1=\"\(Self.number(y1))\" x2=\"\(Self.number(x2))\" y2=\"\(Self.number(y2))\""
            + " stroke=\"\(stroke)\" stroke-width=\"\(Self.number(width))\"" + (dash.map { " stroke-dasharray=\"\($0)\"" } ?? "")
            + "/>\n"
    }

    /// A polyline through `points`, rounded to a tenth of a pixel; nothing for fewer than two.
    mutating func polyline(_ points: [(Double, Double)], stroke: String, width: Double, dash: String?, className: String,
                           opacity: Double = 1) {
        guard points.count > 1 else { return }
        let coordinates = points.map { "\(JSONWriter.format($0.0, decimals: 1)),\(JSONWriter.format($0.1, decimals: 1))" }
        body += "<polyline class=\"\(className)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"\(Self.number(width))\""
            + (dash.map { " stroke-dasharray=\"\($0)\"" } ?? "") + (opacity < 1 ? " stroke-opacity=\"\(Self.number(opacity))\"" : "")
            + " stroke-linejoin=\"round\" points=\"" + coordinates.joined(separator: " ") + "\"/>\n"
    }

    /// A small dot at `point`: a reading with no neighbour near enough to draw a line to.
    mutating func dot(_ point: (Double, Double), fill: String, className: String) {
        body += "<circle class=\"\(className)\" cx=\"\(Self.number(point.0))\" cy=\"\(Self.number(point.1))\" r=\"1.6\" fill=\"\(fill)\"/>\n"
    }
}
