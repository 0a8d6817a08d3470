import Metrics
import Prometheus

/// The process-wide Prometheus registry behind swift-metrics (which can be bootstrapped only once per process).
enum MetricsBootstrap {
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()
}
