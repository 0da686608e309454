/**
 * A one-service catalog template for tests that install real stacks: busybox `httpd` with one port
 * input, `WEBUI_PORT`, defaulting to `port`. Titled after its id (`porty` → `Porty`).
 */
export function webPortTemplate(id: string, revision: number, port: number): string {
  return `services:
  web:
    image: busybox:1.37.0
    command: ["httpd", "-f"]
    ports: ["\${WEBUI_PORT}:80"]
x-service:
  schema: 1
  id: ${id}
  revision: ${revision}
  title: ${id[0]!.toUpperCase()}${id.slice(1)}
  categories: [testing]
  docs: https://example.org/${id}
  inputs:
    WEBUI_PORT: {kind: port, default: ${port}}
`;
}
