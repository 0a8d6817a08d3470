import Foundation

/// A multipart/form-data body: text fields and one file.
struct MultipartForm {
    let body: Data
    let contentType: String

    init(fields: [String: String], file: (field: String, name: String, data: Data)) {
        let boundary = "makestagram-\(UUID().uuidString)"
        var body = Data()
        func line(_ text: String) { body.append(Data((text + "\r\n").utf8)) }
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            line("--\(boundary)")
            line("Content-Disposition: form-data; name=\"\(name)\"")
            line("")
            line(value)
        }
        let safeName = file.name.replacingOccurrences(of: "\"", with: "").replacingOccurrences(of: "\r", with: "")
            .replacingOccurrences(of: "\n", with: "")
        line("--\(boundary)")
        line("Content-Disposition: form-data; name=\"\(file.field)\"; filename=\"\(safeName)\"")
        line("Content-Type: application/octet-stream")
        line("")
        body.append(file.data)
        line("")
        line("--\(boundary)--")
        self.body = body
        self.contentType = "multipart/form-data; boundary=\(boundary)"
    }
}
