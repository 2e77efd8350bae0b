// Runs in the browser, before the GraphiQL bundle (both scripts are deferred, so they run in document order): tells
// Monaco where its editor workers are on this server, then renders GraphiQL once the bundle has run.
const config = JSON.parse(document.getElementById('graphiql-config').textContent);

self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: (_moduleId, label) => config.workers[label],
};

document.addEventListener('DOMContentLoaded', () => {
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), config.graphiql);
});
