"""The hosted path on one machine: a local API Gateway front (`gateway`), its demo issuer and sign-in
(`authorization_server`, clients named by their metadata documents as the product's
`sign_in.client_documents` reads them), and the process that
serves them before the real Lambda handler (`hosted`)."""
