import Foundation
import HTTPTypes
import Hummingbird
import Prometheus

/// Health, metrics and the API description.
struct SystemController: Sendable {
    let registry: PrometheusCollectorRegistry

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("healthz") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
        }
        routes.get("metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        routes.get("api/v1/openapi.yaml") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: Self.openAPIDocument)))
        }
        return routes
    }

    /// The OpenAPI 3.1 description of the API, shipped as a resource.
    static let openAPIDocument: [UInt8] = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml", subdirectory: "Resources"),
            let data = try? Data(contentsOf: url)
        else { return Array("openapi document missing from the build\n".utf8) }
        return Array(data)
    }()
}
