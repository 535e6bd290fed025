from aws_data_mcp_demo.command import main

main()
