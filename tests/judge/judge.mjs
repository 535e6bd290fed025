// The independent judge: reads a JSON list of simulations (iam-simulate's Simulation shape) on stdin and writes, one
// per simulation, iam-simulate's overall result ("Allowed", "ImplicitlyDenied", "ExplicitlyDenied") or its errors.
import { runSimulation } from '@cloud-copilot/iam-simulate'

const chunks = []
for await (const chunk of process.stdin) chunks.push(chunk)
const simulations = JSON.parse(Buffer.concat(chunks).toString('utf8'))
const results = []
for (const simulation of simulations) {
  const outcome = await runSimulation(
    { serviceControlPolicies: [], resourceControlPolicies: [], identityPolicies: [], ...simulation }, {})
  results.push(outcome.resultType === 'error' ? { error: outcome.errors } : { result: outcome.overallResult })
}
process.stdout.write(JSON.stringify(results))
