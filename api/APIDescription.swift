/// The server API's OpenAPI 3.1 description, `api/openapi.json` in the repository, embedded in the binary so every
/// gateway serves the description of the API it speaks at `GET /v1/api/openapi.json` (docs/API.md).
public enum APIDescription {
    /// The description's bytes: JSON.
    public static let json: [UInt8] = PackageResources.openapi_json
}
