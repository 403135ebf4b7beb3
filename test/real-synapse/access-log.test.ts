// The access-log parser that proves what a run sent to a real Synapse (test/fixtures/synapse/launcher.ts),
// on lines as two releases wrote them: 1.67.0 (recorded earlier) and 1.160.0 from Debian, whose resource
// usage carries `ru=` and `db=` labels. Lines of other loggers are not access lines.
import t from 'tap'
import { parseAccessLines } from '../fixtures/synapse/launcher.ts'

t.test('access lines of Synapse 1.67.0', async (t) => {
  const text = [
    '2026-11-24 01:03:36,456 - synapse.access.http.18008 - 450 - INFO - POST-5 - 127.0.0.1 - 18008 - {None} Processed request: 0.003sec/0.000sec (0.001sec, 0.000sec) (0.000sec/0.000sec/0) 59B 400 "POST /_synapse/admin/v1/server_version HTTP/1.1" "curl/7.88.1" [0 dbevts]',
    '2026-11-24 01:03:37,124 - synapse.storage.background_updates - 428 - INFO - background_updates-0 - Starting update batch',
    '2026-11-24 01:06:20,001 - synapse.access.http.33095 - 450 - INFO - GET-35 - 127.0.0.1 - 33095 - {@admin:localhost} Processed request: 0.010sec/0.000sec (0.004sec, 0.000sec) (0.001sec/0.002sec/2) 1234B 200! "GET /_synapse/admin/v1/event_reports?access_token=<redacted>&limit=1 HTTP/1.1" "admin-conformance/0.1.0 run/20261124T010618Z-c34c0f" [3 dbevts]',
    '2026-11-24 01:06:21,001 - synapse.access.http.33095 - 450 - INFO - DELETE-36 - 127.0.0.1 - 33095 - {None} Processed request: 0.001sec/0.000sec (0.001sec, 0.000sec) (0.000sec/0.000sec/0) 59B 400 "DELETE /_synapse/admin/v1/event_reports/1 HTTP/1.1" "-" [0 dbevts]',
  ].join('\n')
  t.same(parseAccessLines(text), [
    {
      requestId: 'POST-5',
      requester: 'None',
      status: 400,
      method: 'POST',
      uri: '/_synapse/admin/v1/server_version',
      userAgent: 'curl/7.88.1',
    },
    {
      requestId: 'GET-35',
      requester: '@admin:localhost',
      status: 200,
      method: 'GET',
      uri: '/_synapse/admin/v1/event_reports?access_token=<redacted>&limit=1',
      userAgent: 'admin-conformance/0.1.0 run/20261124T010618Z-c34c0f',
    },
    { requestId: 'DELETE-36', requester: 'None', status: 400, method: 'DELETE', uri: '/_synapse/admin/v1/event_reports/1', userAgent: '-' },
  ])
})

t.test('access lines of Synapse 1.160.0 (Debian)', async (t) => {
  const text = [
    '2026-11-26 15:35:07,425 - synapse.access.http.34193 - 643 - INFO - GET-1 - 127.0.0.1 - 34193 - {None} Processed request: 0.001sec/0.000sec ru=(0.001sec, 0.000sec) db=(0.000sec/0.000sec/0) 28B 200 "GET /_synapse/admin/v1/server_version HTTP/1.1" "admin-conformance/0.1.0 run/x" [0 dbevts]',
    '2026-11-26 15:35:07,461 - synapse.access.http.34193 - 643 - INFO - DELETE-2 - 127.0.0.1 - 34193 - {None} Processed request: 0.000sec/0.010sec ru=(0.001sec, 0.000sec) db=(0.000sec/0.000sec/0) 59B 405 "DELETE /_synapse/admin/v1/event_reports HTTP/1.1" "node" [0 dbevts]',
  ].join('\n')
  t.same(parseAccessLines(text), [
    {
      requestId: 'GET-1',
      requester: 'None',
      status: 200,
      method: 'GET',
      uri: '/_synapse/admin/v1/server_version',
      userAgent: 'admin-conformance/0.1.0 run/x',
    },
    { requestId: 'DELETE-2', requester: 'None', status: 405, method: 'DELETE', uri: '/_synapse/admin/v1/event_reports', userAgent: 'node' },
  ])
})
